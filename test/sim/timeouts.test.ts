// Client timeouts end to end (docs/behavior.md "Client timeouts"): conservation over random
// configurations, what a timed-out request frees and keeps, closed-loop users giving up, the
// opt-in output and the validation messages.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { simulate } from "../../src/sim/simulate.js";
import { renderStdout } from "../../src/sim/renderStdout.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { silentLogger } from "../../src/util/log.js";
import { FC_SEED } from "../helpers/fc.js";
import { cliError } from "./helpers.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

async function run(input: RunInput) {
  return simulate({ model: MODEL, ...input }, { logger: silentLogger });
}

test("conservation holds with timeouts: injected = completed + queued + running + dropped + timed out", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        instances: fc.integer({ min: 1, max: 3 }),
        rate: fc.constantFrom(5, 20, 80),
        timeout: fc.constantFrom(1, 2, 5),
        users: fc.constantFrom(0, 0, 4, 16),
        finite: fc.boolean(),
        kvBlocks: fc.constantFrom(0, 300, 2000),
        chunk: fc.constantFrom(0, 256),
        admissionLatency: fc.constantFrom(0, 0, 1_500_000),
        seed: fc.integer({ min: 1, max: 1000 }),
      }),
      async (p) => {
        const input: RunInput = {
          numInstances: p.instances,
          timeout: p.timeout,
          numRequests: 120,
          promptTokens: 400,
          promptTokensStdev: 200,
          promptTokensMin: 2,
          promptTokensMax: 2000,
          outputTokens: 200,
          outputTokensStdev: 150,
          outputTokensMin: 1,
          outputTokensMax: 1000,
          seed: p.seed,
          admissionLatency: p.admissionLatency,
          longPrefillTokenThreshold: p.chunk,
          ...(p.users > 0 ? { concurrency: p.users } : { rate: p.rate }),
          ...(p.kvBlocks > 0 ? { totalKvBlocks: p.kvBlocks } : {}),
          ...(p.finite ? { horizon: 4_000_000 } : {}),
        };
        const res = await run(input);
        const m = res.metrics;
        const c = m.cluster;
        const timedOut = c.timed_out_requests!;
        assert.notEqual(timedOut, undefined, "a run with deadlines reports timed_out_requests");
        assert.equal(
          c.injected_requests,
          c.completed_requests + c.still_queued + c.still_running + c.dropped_unservable + timedOut,
        );
        // Every routed request completed, was dropped, timed out, or is still in flight.
        const inFlight = res.run.inFlight.reduce((a, b) => a + b, 0);
        assert.equal(m.routed, c.completed_requests + c.dropped_unservable + timedOut + inFlight);
        let sumInst = 0;
        for (const b of m.instances) sumInst += b.timed_out_requests!;
        assert.equal(sumInst, timedOut);
        const l = res.run.ledger;
        let records = 0;
        for (let i = 0; i < l.size; i++) {
          if (!l.isTimedOut(i)) continue;
          records++;
          assert.ok(l.isRegistered(i) && !l.isCompleted(i), "a timed-out request keeps its record, without completion");
        }
        assert.equal(records, timedOut);
        if (!p.finite) {
          assert.equal(c.still_queued + c.still_running, 0);
          assert.equal(m.generated, c.completed_requests + c.dropped_unservable + timedOut + m.anomalies.rejected);
          // Every block went back: completed and timed-out requests alike release theirs.
          for (const inst of res.run.instances) assert.equal(inst.kv.used, 0, `${inst.id} holds KV blocks at the end`);
        }
      },
    ),
    { numRuns: 25, seed: FC_SEED },
  );
});

test("a request times out in the batch and in the queue; its TTFT stays, it has no E2E", async () => {
  // One request at a time, each needing about 2 s: the first runs out of time while running, the
  // ones behind it while waiting.
  const res = await run({
    maxNumSeqs: 1,
    rate: 1000,
    numRequests: 4,
    promptTokens: 100,
    promptTokensStdev: 0,
    promptTokensMin: 0,
    outputTokens: 300,
    outputTokensStdev: 0,
    outputTokensMin: 0,
    timeout: 1,
  });
  const c = res.metrics.cluster;
  assert.equal(c.completed_requests, 0);
  assert.equal(c.timed_out_requests, 4);
  const l = res.run.ledger;
  const all = [...Array(l.size).keys()];
  assert.ok(all.some((i) => l.ttft[i]! >= 0) && c.ttft_mean_ms > 0, "a request that ran keeps its TTFT");
  assert.ok(
    all.some((i) => l.sched[i]! < 0),
    "a request timed out while waiting",
  );
  assert.ok(all.every((i) => l.e2e[i]! < 0));
  const out = renderStdout(res);
  assert.match(out.head, /"e2e_mean_ms": null/);
  assert.match(out.tail, /Dropped Unservable: 0\nTimed Out Requests: 4\nLength-Capped Requests: 0\n/);
  // A deadline ends the instance's work: the run ends at the last deadline, not after service.
  assert.ok(c.vllm_estimated_duration_s <= 1.01, `duration ${c.vllm_estimated_duration_s}`);
});

test("a request already past its deadline when it reaches the instance times out at enqueue", async () => {
  const res = await run({ admissionLatency: 2_000_000, rate: 10, numRequests: 5, timeout: 1 });
  const c = res.metrics.cluster;
  assert.equal(c.timed_out_requests, 5);
  assert.equal(c.completed_requests, 0);
  assert.ok(c.total_input_tokens > 0, "a past-due request still counts as input");
  assert.equal(res.metrics.clusterSamples?.schedulingDelay, 0, "it was never scheduled");
});

test("a deadline the request beats leaves no trace: completions and latencies as without one", async () => {
  const base: RunInput = { rate: 5, numRequests: 40, seed: 3 };
  const plain = await run(base);
  const lax = await run({ ...base, timeout: 3600 });
  assert.equal(lax.metrics.cluster.timed_out_requests, 0);
  const { length_capped_requests, timed_out_requests, ...rest } = lax.metrics.cluster;
  assert.equal(length_capped_requests, 0);
  assert.equal(timed_out_requests, 0);
  assert.deepEqual(rest, plain.metrics.cluster, "orphaned deadlines change nothing, sim_ended included");
  assert.doesNotMatch(renderStdout(plain).tail + renderStdout(plain).head, /Timed Out|timed_out/);
  assert.doesNotMatch(renderStdout(lax).tail, /Anomaly/);
});

test("a virtual user whose request times out gives up: the effective concurrency shrinks", async () => {
  const users = 6;
  const res = await run({
    concurrency: users,
    horizon: 60_000_000,
    promptTokens: 200,
    promptTokensStdev: 0,
    promptTokensMin: 0,
    outputTokens: 300,
    outputTokensStdev: 0,
    outputTokensMin: 0,
    maxNumSeqs: 2,
    timeout: 5,
  });
  const c = res.metrics.cluster;
  const timedOut = c.timed_out_requests!;
  assert.ok(timedOut > 0 && timedOut < users, `timed out ${timedOut}`);
  assert.ok(c.completed_requests > users, "the users that never timed out keep going");
  // Without think time an active user always has exactly one request outstanding; a cancelled
  // one has none.
  const outstanding = res.run.inFlight.reduce((a, b) => a + b, 0);
  assert.equal(outstanding, users - timedOut);
  assert.equal(res.metrics.sessions?.sessions, users);
});

test("spec timeouts: per client, on cohorts, and --timeout replacing them", async () => {
  const client = (id: string, timeout?: number) => ({
    id,
    rate_fraction: 1,
    arrival: { process: "poisson" },
    input_distribution: { type: "constant", params: { value: 100 } },
    output_distribution: { type: "constant", params: { value: 300 } },
    ...(timeout !== undefined ? { timeout } : {}),
  });
  const spec = {
    version: "2",
    seed: 7,
    aggregate_rate: 50,
    num_requests: 60,
    clients: [client("strict", 500_000), client("patient")],
  };
  const res = await run({ workloadSpecObject: spec, maxNumSeqs: 4 });
  const l = res.run.ledger;
  const timedOut = [...Array(l.size).keys()].filter((i) => l.isTimedOut(i));
  assert.ok(timedOut.length > 0);
  assert.ok(res.metrics.cluster.completed_requests > 0);
  const off = await run({ workloadSpecObject: spec, maxNumSeqs: 4, timeout: -1 });
  assert.equal(off.metrics.cluster.timed_out_requests, undefined, "--timeout -1 removes the spec's deadlines");
  assert.equal(off.metrics.cluster.completed_requests, 60);
  const cohortSpec = {
    version: "2",
    seed: 7,
    aggregate_rate: 50,
    num_requests: 60,
    cohorts: [{ ...client("c"), id: "c", population: 3, timeout: 500_000 }],
  };
  const cohort = await run({ workloadSpecObject: cohortSpec, maxNumSeqs: 4 });
  assert.ok(cohort.metrics.cluster.timed_out_requests! > 0, "cohort members carry the cohort's timeout");
});

test("timeout validation messages", async () => {
  assert.equal(
    await cliError(["--timeout", "0"]),
    "--timeout must be positive (seconds) or negative to disable; got 0",
  );
  const spec = {
    version: "2",
    aggregate_rate: 1,
    num_requests: 5,
    clients: [
      {
        id: "a",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: { type: "constant", params: { value: 5 } },
        output_distribution: { type: "constant", params: { value: 5 } },
        timeout: -5,
      },
    ],
  };
  await assert.rejects(run({ workloadSpecObject: spec }), /client\[0\]: timeout must be non-negative, got -5/);
});

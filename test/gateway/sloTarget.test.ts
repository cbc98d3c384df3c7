// Per-request TTFT targets (`slo_target_us`) in `slo-deadline` dispatch: a request's own target wins
// over its class's, from a workload spec (clients, cohorts, session rounds) or a replayed trace.
import { test } from "node:test";
import assert from "node:assert/strict";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { mkReq, tokens } from "../cluster/helpers.js";
import { fakeGateway } from "./helpers.js";

test("a request's own target wins over its class's target", () => {
  const f = fakeGateway({ byDeadline: true, targets: new Map([["standard", 100]]) });
  f.setSaturation(5);
  f.gw.enqueue(mkReq("class", tokens(4), { extra: { sloClass: "standard" } }), 0); // 0 + 100
  f.gw.enqueue(mkReq("own", tokens(4), { extra: { sloClass: "standard", sloTargetUs: 10 } }), 50); // 50 + 10
  f.setSaturation(0);
  f.gw.attempt(60);
  f.gw.attempt(61);
  assert.deepEqual(f.dispatched, ["own", "class"]);
});

const client = (id: string, input: number, extra: Record<string, unknown>): Record<string, unknown> => ({
  id,
  tenant_id: "t",
  slo_class: "standard",
  rate_fraction: 0.5,
  arrival: { process: "poisson" },
  input_distribution: { type: "constant", params: { value: input } },
  output_distribution: { type: "constant", params: { value: 64 } },
  ...extra,
});

/** Mean TTFT (ms) of the requests with each prompt length, overloaded behind a gateway. */
async function ttftByClient(spec: Record<string, unknown>, order: string): Promise<Map<number, number>> {
  const input: RunInput = {
    model: "meta-llama/llama-3.1-8b-instruct",
    workloadSpecObject: spec,
    flowControl: true,
    saturationDetector: "concurrency",
    maxConcurrency: 2,
    dispatchOrder: order,
  };
  const res = await simulate(input, { logger: silentLogger });
  const sums = new Map<number, [number, number]>();
  for (const r of res.resultsObject().requests ?? []) {
    const s = sums.get(r.num_prefill_tokens) ?? [0, 0];
    sums.set(r.num_prefill_tokens, [s[0] + r.ttft_ms, s[1] + 1]);
  }
  return new Map([...sums].map(([k, [sum, n]]) => [k, sum / n]));
}

test("slo-deadline serves the client with the tighter own target first", async () => {
  const spec = (a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> => ({
    version: "2",
    seed: 3,
    aggregate_rate: 200,
    num_requests: 300,
    clients: [client("relaxed", 100, a), client("urgent", 101, b)],
  });
  const targeted = await ttftByClient(spec({ slo_target_us: 5_000_000 }, { slo_target_us: 1_000 }), "slo-deadline");
  assert.ok(
    targeted.get(101)! * 2 < targeted.get(100)!,
    `urgent ${targeted.get(101)} ms, relaxed ${targeted.get(100)} ms`,
  );
  const fifo = await ttftByClient(spec({ slo_target_us: 5_000_000 }, { slo_target_us: 1_000 }), "fifo");
  const ratio = fifo.get(101)! / fifo.get(100)!;
  assert.ok(ratio > 0.7 && ratio < 1.4, `fifo ignores the targets: ${ratio}`);
  const cohorts = {
    version: "2",
    seed: 3,
    aggregate_rate: 200,
    num_requests: 300,
    cohorts: [
      { ...client("relaxed", 100, { slo_target_us: 5_000_000 }), population: 2, prefix_group: "", streaming: false },
      { ...client("urgent", 101, { slo_target_us: 1_000 }), population: 2, prefix_group: "", streaming: false },
    ],
  };
  const byCohort = await ttftByClient(cohorts, "slo-deadline");
  assert.ok(byCohort.get(101)! * 2 < byCohort.get(100)!, "cohort members carry the cohort's target");
});

test("a negative slo_target_us is refused naming the client", async () => {
  const spec = { version: "2", aggregate_rate: 1, num_requests: 5, clients: [client("a", 10, { slo_target_us: -1 })] };
  await assert.rejects(
    simulate({ model: "meta-llama/llama-3.1-8b-instruct", workloadSpecObject: spec }, { logger: silentLogger }),
    /client\[0\]: slo_target_us must be non-negative, got -1/,
  );
});

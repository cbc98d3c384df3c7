// Closed-loop runs end to end (docs/behavior.md "Closed-loop load"): Little's law for virtual
// users, conservation of requests, the session block, and the command-line rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { simulate } from "../../src/sim/simulate.js";
import { renderStdout } from "../../src/sim/renderStdout.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { silentLogger } from "../../src/util/log.js";
import { FC_SEED } from "../helpers/fc.js";
import { cliError } from "./helpers.js";
import type { StepProbe } from "../../src/instance/stepProbe.js";

const MODELS = ["meta-llama/llama-3.1-8b-instruct", "codellama/codellama-34b-instruct-hf"];

async function run(input: RunInput, probe?: StepProbe) {
  return simulate(input, { logger: silentLogger, ...(probe !== undefined ? { hooks: { stepProbe: probe } } : {}) });
}

/**
 * Each completed request's arrival and end on the simulation clock (the end of its completion
 * step, when its user's think time starts). The E2E metric adds α2 per output token that no step
 * takes, so a user's cycle is its time on the clock, not its E2E (docs/behavior.md "Closed-loop load").
 */
function clockTimes(): { probe: StepProbe; arrival: number[]; end: number[] } {
  const arrival: number[] = [];
  const end: number[] = [];
  let stepEnd = 0;
  const probe: StepProbe = {
    onQueued: () => undefined,
    onStep: (_i, _s, now, d) => {
      stepEnd = now + d;
    },
    onFirstToken: () => undefined,
    onComplete: (_i, r) => {
      arrival.push(r.arrival);
      end.push(stepEnd);
    },
  };
  return { probe, arrival, end };
}

/**
 * Little's law over a window after warm-up that ends before the drain: completions per tick in
 * the window times the mean time a user spends per request (response time plus think time).
 */
function littleL(arr: number[], done: number[], thinkUs: number): number {
  const lastArrival = Math.max(...arr);
  const t0 = lastArrival * 0.2;
  const t1 = lastArrival * 0.9;
  let n = 0;
  let sum = 0;
  for (let k = 0; k < arr.length; k++) {
    if (done[k]! < t0 || done[k]! > t1) continue;
    n++;
    sum += done[k]! - arr[k]! + thinkUs;
  }
  return (n / (t1 - t0)) * (sum / n);
}

test("Little's law holds for virtual users: throughput × (E2E + think) = C", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 6 }),
      fc.constantFrom(0, 0, 20, 150),
      fc.constantFrom(...MODELS),
      async (c, thinkMs, model) => {
        const times = clockTimes();
        const res = await run(
          {
            model,
            concurrency: c,
            thinkTimeMs: thinkMs,
            numRequests: 160 * c,
            promptTokens: 200,
            promptTokensStdev: 50,
            outputTokens: 40,
            outputTokensStdev: 10,
            outputTokensMin: 2,
          },
          times.probe,
        );
        const L = littleL(times.arrival, times.end, thinkMs * 1000);
        assert.ok(Math.abs(L - c) / c < 0.02, `C=${c} think=${thinkMs}ms ${model}: L=${L}`);
        // Conservation: every generated request completed, was dropped or rejected, or is in flight.
        const m = res.metrics;
        const inFlight = res.run.inFlight.reduce((a, b) => a + b, 0);
        const a = m.anomalies;
        assert.equal(
          m.generated,
          m.cluster.completed_requests + a.droppedUnservable + a.rejected + (a.routingRejections ?? 0) + inFlight,
        );
        assert.equal(m.generated, 160 * c, "the request cap counts follow-ups");
      },
    ),
    { numRuns: 8, seed: FC_SEED },
  );
});

test("a horizon-bound run conserves requests and prints the session block", async () => {
  const res = await run({ model: MODELS[0]!, concurrency: 3, thinkTimeMs: 5, horizon: 2_000_000 });
  const m = res.metrics;
  const inFlight = res.run.inFlight.reduce((a, b) => a + b, 0);
  assert.ok(inFlight > 0, "users are still waiting at the horizon");
  assert.equal(
    m.generated,
    m.cluster.completed_requests + m.anomalies.droppedUnservable + m.anomalies.rejected + inFlight,
  );
  const tail = renderStdout(res).tail;
  assert.match(
    tail,
    /=== Session Metrics ===\n {2}Sessions: 3\n {2}TTFT cold \(round 0\): mean=[\d.]+ .* ms \(n=3\)\n {2}TTFT warm/,
  );
});

test("open-loop multi-turn runs keep their output: no session block", async () => {
  const spec = {
    version: "2",
    seed: 5,
    aggregate_rate: 5,
    num_requests: 12,
    clients: [
      {
        id: "chat",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: { type: "constant", params: { value: 64 } },
        output_distribution: { type: "constant", params: { value: 8 } },
        reasoning: { multi_turn: { max_rounds: 3, think_time_us: 1000 } },
      },
    ],
  };
  const open = await run({ model: MODELS[0]!, workloadSpecObject: spec });
  assert.equal(open.metrics.sessions, undefined);
  assert.doesNotMatch(renderStdout(open).tail, /Session Metrics/);
  const closed = await run({
    model: MODELS[0]!,
    workloadSpecObject: { ...spec, clients: [{ ...spec.clients[0]!, closed_loop: true }] },
  });
  assert.equal(closed.metrics.sessions?.sessions, 4);
  assert.equal(closed.metrics.cluster.completed_requests, 12);
});

test("--concurrency rules and their messages", async () => {
  assert.equal(await cliError(["--concurrency", "-1"]), "--concurrency must be >= 0, got -1");
  assert.equal(await cliError(["--think-time-ms", "-3"]), "--think-time-ms must be >= 0, got -3");
  assert.equal(
    await cliError(["--concurrency", "2", "--rate", "4"]),
    "--concurrency and --rate are mutually exclusive; use one or the other",
  );
  assert.equal(
    await cliError(["--concurrency", "2", "--workload-spec", "x.yaml"]),
    "--concurrency cannot be used with --workload-spec; define concurrency in the spec file using clients[].concurrency instead",
  );
});

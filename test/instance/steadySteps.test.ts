// Steady steps (src/instance/steadySteps.ts, docs/architecture.md "Steady steps"): runs of steps in
// which only the decode cohort works are taken without events when nothing else can happen before
// them. A cluster observer makes the loop run one event at a time, which turns them off; the
// results must not tell the two apart.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { run, simConfig } from "../helpers/sim.js";
import { makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { assertSameRuns, stdoutOf } from "./helpers.js";

const configArb = fc.record({
  instances: fc.integer({ min: 1, max: 4 }),
  routing: fc.constantFrom("round-robin", "least-loaded", "weighted"),
  blockSize: fc.constantFrom(4, 16, 64),
  totalKvBlocks: fc.oneof(fc.integer({ min: 20, max: 60 }), fc.integer({ min: 200, max: 2000 })),
  maxRunning: fc.integer({ min: 1, max: 8 }),
  horizon: fc.constantFrom(1e12, 2_000_000, 600_000),
});

const workloadArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20000 }), fc.integer({ min: 0, max: 400000 })),
    input: fc.integer({ min: 1, max: 200 }),
    // Leading prompt tokens common to every request with the same value: cache hits make the
    // order in which steps take and free KV blocks show in the results.
    shared: fc.integer({ min: 0, max: 120 }),
    output: fc.integer({ min: 0, max: 400 }),
    timeout: fc.oneof(fc.constant(0), fc.integer({ min: 10000, max: 3_000_000 })),
  }),
  { minLength: 1, maxLength: 30 },
);

type Cfg = typeof configArb extends fc.Arbitrary<infer T> ? T : never;
type Wl = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

function requests(w: Wl): WorkloadRequest[] {
  let t = 0;
  return w.map((r, i) => {
    t += r.gap;
    const input = Array.from({ length: r.input }, (_, k) => (k < r.shared ? 7 + k : 1000 + ((i * 7919 + k) % 5000)));
    const output = Array.from({ length: r.output }, (_, k) => 9000 + k);
    return makeRequest(`request_${i}`, t, input, output, r.timeout > 0 ? { deadline: t + r.timeout } : {});
  });
}

function runOnce(c: Cfg, w: Wl, oneEventAtATime: boolean, timeSeriesIntervalUs = 0): ClusterRun {
  const cfg = simConfig({
    horizon: c.horizon,
    alpha: [200, 2, 100],
    beta: [1000, 3, 2],
    cluster: {
      numInstances: c.instances,
      routing: { policy: c.routing, scorers: [{ name: "queue-depth", weight: 1 }] },
    },
    kv: { totalKvBlocks: c.totalKvBlocks, blockSize: c.blockSize },
    engine: { maxRunning: c.maxRunning },
  });
  const observer = { onRouted: () => undefined, onClock: () => undefined };
  return run(cfg, requests(w), { ...(oneEventAtATime ? { clusterObserver: observer } : {}), timeSeriesIntervalUs });
}

test("steady steps (property): the same metrics, ITLs, step counts and KV state as running every step as an event", () => {
  let steady = 0;
  fc.assert(
    fc.property(configArb, workloadArb, (c, w) => {
      const fast = runOnce(c, w, false);
      const slow = runOnce(c, w, true);
      assertSameRuns(fast, slow);
      for (const inst of slow.instances) assert.equal(inst.steadySteps, 0);
      for (const inst of fast.instances) steady += inst.steadySteps;
    }),
    { seed: FC_SEED, numRuns: 120 },
  );
  assert.ok(steady > 1000, `only ${steady} steady steps in all cases: the property exercises little`);
});

test("the step after a steady run stopped by a cluster event is a steady step too", () => {
  // A time-series sample every 10 ms stops the steady run of a lone 600-token decode (1 ms steps)
  // 60 times; each time its next step finds nothing but the cohort and is taken in the steady loop
  // again. Its events are the prefill and, at each of its 64-token blocks, the step that fills it
  // (others may look the block up) and the next, which takes a new one.
  const c: Cfg = {
    instances: 1,
    routing: "round-robin",
    blockSize: 64,
    totalKvBlocks: 200,
    maxRunning: 4,
    horizon: 1e12,
  };
  const w: Wl = [{ gap: 0, input: 40, shared: 0, output: 600, timeout: 0 }];
  const fast = runOnce(c, w, false, 10_000);
  const slow = runOnce(c, w, true, 10_000);
  assert.equal(stdoutOf(fast), stdoutOf(slow));
  assert.deepEqual(fast.timeSeries, slow.timeSeries);
  const inst = fast.instances[0]!;
  assert.equal(inst.stepCount, slow.instances[0]!.stepCount);
  assert.ok(slow.timeSeries !== null && slow.timeSeries.timesUs.length >= 60, "the samples stop the steady run often");
  assert.ok(inst.stepCount - inst.steadySteps <= 25, `${inst.stepCount - inst.steadySteps} steps as events`);
});

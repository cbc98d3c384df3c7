// Requests in plain decode left out of the step's visits (instance/decodeCohort.ts) must not
// change anything: every run here goes once with the cohort and once without it (an instance
// observer turns it off), and the metrics, per-request records and pooled ITL must agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import type { InstanceObserver } from "../../src/instance/instance.js";
import type { LatencyModel, StepRequestView, Timeline } from "../../src/latency/model.js";
import { TrainedPhysicsLatencyModel } from "../../src/latency/trainedPhysics.js";
import { loadCoefficientFile } from "../../src/latency/coefficientFile.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { renderMetricBlocks } from "../../src/metrics/render.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { bundledArch, currentHardware, LLAMA_8B } from "../latency/archHelpers.js";
import { DATA_DIR } from "../latency/helpers.js";
import { FC_SEED } from "../helpers/fc.js";

/** Step time grows with the decodes' PIs, so a wrong PI sum shows in every time. */
class PiModel implements LatencyModel {
  constructor(readonly timeline: Timeline) {}
  queueingTime(): number {
    return 5;
  }
  outputTokenProcessingTime(): number {
    return 3;
  }
  postDecodeOverhead(): number {
    return this.timeline === "current" ? 11 : 0;
  }
  stepTime(batch: readonly StepRequestView[], count: number): number {
    return this.stepTimeWithDecodes(batch, count, 0, 0);
  }
  stepTimeWithDecodes(batch: readonly StepRequestView[], count: number, decodes: number, decodePis: number): number {
    let p = 0;
    let d = decodes;
    let s = decodePis;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      if (r.numNewTokens <= 0) continue;
      if (r.pi < r.inputLen) p += r.numNewTokens;
      else if (r.outputLen > 0) {
        d++;
        s += r.pi;
      }
    }
    return p + d === 0 ? 1 : 200 + 3 * p + 17 * d + Math.floor(s / 7);
  }
}

const COEFFS = loadCoefficientFile(join(DATA_DIR, "head", "trained-physics.yaml")).trained_physics_coefficients;
const trained = (): LatencyModel =>
  new TrainedPhysicsLatencyModel(bundledArch(LLAMA_8B, "meta-llama/llama-3.1-8b-instruct"), currentHardware("H100"), {
    alpha: COEFFS.alpha_coeffs,
    beta: COEFFS.beta_coeffs,
    tp: 1,
    dp: 1,
    moeCommBackend: "",
  });

const noObserver: InstanceObserver = { afterEvent: () => {}, afterStep: () => {} };

function outcome(r: ClusterRun): unknown {
  const l = r.ledger;
  const itl = new Map<number, number>();
  for (const inst of r.instances) inst.pooledItl(itl);
  return {
    stdout: renderMetricBlocks(r.metrics),
    ttft: Array.from(l.ttft.subarray(0, l.size)),
    e2e: Array.from(l.e2e.subarray(0, l.size)),
    itl: Array.from(l.itl.subarray(0, l.size)),
    sched: Array.from(l.sched.subarray(0, l.size)),
    pooled: [...itl].sort((a, b) => a[0] - b[0]),
    counters: r.instances.map((i) => [
      i.stepCount,
      i.preemptionCount,
      i.kvAllocationFailures,
      i.totalOutputTokens,
      i.kv.hits,
      i.kv.misses,
    ]),
  };
}

const caseArb = fc.record({
  timeline: fc.constantFrom<Timeline>("seed", "current"),
  trained: fc.boolean(),
  blockSize: fc.constantFrom(1, 2, 4, 16),
  blocks: fc.integer({ min: 6, max: 400 }),
  budget: fc.integer({ min: 8, max: 600 }),
  maxRunning: fc.integer({ min: 1, max: 40 }),
  threshold: fc.constantFrom(0, 5, 64),
  instances: fc.integer({ min: 1, max: 3 }),
  preemption: fc.constantFrom("tail", "slo-aware"),
  horizon: fc.constantFrom(Infinity, 400_000),
  reqs: fc.array(
    fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 90 })),
    {
      minLength: 1,
      maxLength: 40,
    },
  ),
});

test("the decode cohort changes no result", () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const cfg = simConfig({
        latency: c.trained ? trained : () => new PiModel(c.timeline),
        horizon: c.horizon,
        kv: { blockSize: c.blockSize, totalKvBlocks: c.blocks },
        engine: { maxScheduledTokens: c.budget, maxRunning: c.maxRunning, longPrefillThreshold: c.threshold },
        cluster: { numInstances: c.instances, routing: { policy: "least-loaded" } },
        policy: { preemption: c.preemption },
      });
      let t = 0;
      const reqs = c.reqs.map(([gap, input, output], i) => {
        t += gap;
        return req(`request_${i}`, t, input, output, { sloClass: i % 3 === 0 ? "critical" : "standard" });
      });
      const withCohort = run(cfg, reqs);
      const without = run(cfg, reqs, { instanceObserver: noObserver });
      assert.deepEqual(outcome(withCohort), outcome(without));
    }),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("long decodes spend most steps in the cohort and still match step by step", () => {
  const cfg = simConfig({ latency: () => new PiModel("current"), kv: { totalKvBlocks: 5000 } });
  const reqs = Array.from({ length: 60 }, (_, i) => req(`request_${i}`, i * 3000, 50 + i, 300 + 7 * i));
  let visitsWith = 0;
  const counting: InstanceObserver = {
    afterEvent: () => {},
    afterStep: (inst) => void (visitsWith += inst.running.length),
  };
  const a = run(cfg, reqs);
  const b = run(cfg, reqs, { instanceObserver: counting });
  assert.deepEqual(outcome(a), outcome(b));
  assert.ok(visitsWith > 10_000);
});

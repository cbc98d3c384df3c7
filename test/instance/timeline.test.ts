// Request timelines in the engine (docs/latency.md "Request timelines", docs/behavior.md
// "Step time and request timelines"): the
// "current" timeline of the trained-physics and roofline backends against the "seed" one that
// blackbox and the seed roofline keep.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Instance } from "../../src/instance/instance.js";
import type { LatencyModel, StepRequestView, Timeline } from "../../src/latency/model.js";
import { TrainedPhysicsLatencyModel } from "../../src/latency/trainedPhysics.js";
import { BlackboxLatencyModel } from "../../src/latency/blackbox.js";
import { loadCoefficientFile } from "../../src/latency/coefficientFile.js";
import { makeRequest } from "../../src/core/workloadRequest.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { record, req, run, simConfig } from "../helpers/sim.js";
import { bundledArch, currentHardware, LLAMA_8B } from "../latency/archHelpers.js";
import { DATA_DIR } from "../latency/helpers.js";

const COEFFS = loadCoefficientFile(join(DATA_DIR, "head", "trained-physics.yaml")).trained_physics_coefficients;
const LLAMA_ARCH = bundledArch(LLAMA_8B, "meta-llama/llama-3.1-8b-instruct");
const H100 = currentHardware("H100");

function trainedPhysics(tp = 1): () => LatencyModel {
  return () =>
    new TrainedPhysicsLatencyModel(LLAMA_ARCH, H100, {
      alpha: COEFFS.alpha_coeffs,
      beta: COEFFS.beta_coeffs,
      tp,
      dp: 1,
      moeCommBackend: "",
    });
}

/**
 * A hand-made model with easy numbers: queueing Q, α2 A2, post-decode POST; a step costs 1000 per
 * scheduled prefill plus 100 + (PI − prompt) per scheduled decode (requests without new tokens
 * cost nothing); an empty step costs 1.
 */
const Q = 7;
const A2 = 10;
const POST = 50;
class FixedModel implements LatencyModel {
  /** Step durations in call order, and the scheduled-request count of each step. */
  readonly steps: { d: number; scheduled: number; batch: number }[] = [];
  constructor(
    readonly timeline: Timeline,
    private readonly post = timeline === "current" ? POST : 0,
  ) {}
  queueingTime(): number {
    return Q;
  }
  outputTokenProcessingTime(): number {
    return A2;
  }
  postDecodeOverhead(): number {
    return this.post;
  }
  stepTime(batch: readonly StepRequestView[], count: number): number {
    let d = 0;
    let scheduled = 0;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      if (r.numNewTokens <= 0) continue;
      scheduled++;
      d += r.pi < r.inputLen ? 1000 : 100 + (r.pi - r.inputLen);
    }
    const out = d === 0 ? 1 : d;
    this.steps.push({ d: out, scheduled, batch: count });
    return out;
  }
}

/** The pooled ITL entries of instance 0 as a sorted list. */
function itlEntries(r: ClusterRun): number[] {
  const m = new Map<number, number>();
  r.instances[0]!.pooledItl(m);
  const out: number[] = [];
  for (const [v, n] of m) for (let i = 0; i < n; i++) out.push(v);
  return out.sort((a, b) => a - b);
}

test("current timeline, one request (L 64, O 4): O − 1 ITL entries, E2E = TTFT + ΣITL + post-decode overhead", () => {
  const r = run(simConfig({ latency: () => new FixedModel("current") }), [req("a", 0, 64, 4)]);
  const a = record(r, "a");
  assert.equal(a.completed, true);
  // Queued at 7; prefill step 7 → 1007: TTFT = 7 + 1000 + 10. Decodes at PI 64, 65, 66 cost
  // 100, 101, 102, so the ITL entries are 110, 111, 112 and the request leaves at 1310.
  assert.equal(a.sched, Q);
  assert.equal(a.ttft, 1017);
  assert.deepEqual(itlEntries(r), [110, 111, 112]);
  assert.equal(a.e2e, 1017 + 333 + POST);
  assert.equal(a.itl, 333 / 3);
  assert.equal(r.metrics.cluster.itl_mean_ms, 0.111);
  assert.equal(r.instances[0]!.simEnded(), 1310);
});

test("seed timeline, same request: O ITL entries (the last duplicated), E2E = TTFT + ΣITL", () => {
  const r = run(simConfig({ latency: () => new FixedModel("seed") }), [req("a", 0, 64, 4)]);
  const a = record(r, "a");
  assert.equal(a.ttft, 1017);
  assert.deepEqual(itlEntries(r), [110, 111, 112, 112]);
  assert.equal(a.e2e, 1017 + 445);
  assert.equal(a.itl, 445 / 3);
  assert.equal(r.instances[0]!.simEnded(), 1310, "the duplicate entry is metrics only");
});

test("one output token: no ITL entries on the current timeline (one on the seed one), E2E = TTFT + overhead", () => {
  const cur = run(simConfig({ latency: () => new FixedModel("current") }), [req("a", 0, 64, 1)]);
  assert.deepEqual(itlEntries(cur), []);
  assert.equal(record(cur, "a").ttft, 1017);
  assert.equal(record(cur, "a").e2e, 1017 + POST);
  assert.equal(record(cur, "a").itl, 0);
  const seed = run(simConfig({ latency: () => new FixedModel("seed") }), [req("a", 0, 64, 1)]);
  assert.deepEqual(itlEntries(seed), [1010]);
  assert.equal(record(seed, "a").e2e, 1017 + 1010);
});

test("current timeline with many requests: every completed request has O − 1 entries and E2E = TTFT + ΣITL + overhead", () => {
  const reqs = Array.from({ length: 12 }, (_, i) => req(`r${i}`, i * 300, 20 + 17 * i, 1 + ((i * 5) % 9)));
  const r = run(simConfig({ latency: () => new FixedModel("current") }), reqs);
  const l = r.ledger;
  let entries = 0;
  for (let i = 0; i < l.size; i++) {
    assert.ok(l.isCompleted(i));
    const O = l.outputLen[i]!;
    entries += O - 1;
    // E2E − TTFT − overhead is the request's ITL sum; the per-request ITL divides it by O − 1.
    const sum = l.e2e[i]! - l.ttft[i]! - POST;
    assert.ok(sum >= 0);
    assert.ok(Math.abs(l.itl[i]! * Math.max(O - 1, 1) - sum) < 1e-6, `request ${l.ids[i]}`);
    assert.ok(l.ttft[i]! <= l.e2e[i]!);
  }
  assert.equal(itlEntries(r).length, entries);
});

test("trained-physics queueing delay is α0 whatever the prompt length; blackbox's grows with it", () => {
  const reqs = [req("short", 0, 512, 2), req("long", 2_000_000, 4096, 2)];
  const tp = run(simConfig({ latency: trainedPhysics(), kv: { totalKvBlocks: 26312 } }), reqs);
  assert.equal(record(tp, "short").sched, 15563);
  assert.equal(record(tp, "long").sched, 15563);
  const reqs2 = [req("short", 0, 512, 2), req("long", 2_000_000, 4096, 2)];
  const bb = run(simConfig({ latency: () => new BlackboxLatencyModel([1000, 2, 0], [1000, 1, 1]) }), reqs2);
  assert.equal(record(bb, "short").sched, 1000 + 2 * 512);
  assert.equal(record(bb, "long").sched, 1000 + 2 * 4096);
});

test("single-request timeline through the engine (Llama-3.1-8B TP 1, bundled coefficients)", () => {
  const r = run(
    simConfig({ latency: trainedPhysics(), kv: { totalKvBlocks: 26312 }, engine: { maxModelLen: 131072 } }),
    [req("r", 0, 512, 4)],
  );
  const x = record(r, "r");
  assert.equal(x.completed, true);
  assert.equal(x.sched, 15563, "queued at 15563, scheduled at once");
  assert.equal(x.ttft, 23573);
  assert.deepEqual(itlEntries(r), [6918, 6918, 6919]);
  assert.equal(x.e2e, 45105);
  assert.equal(x.itl, 20755 / 3);
  assert.equal(r.instances[0]!.simEnded(), 44148, "RequestLeft at 44148");
  const c = r.metrics.cluster;
  assert.equal(c.ttft_mean_ms, 23.573);
  assert.equal(c.e2e_mean_ms, 45.105);
});

test("current timeline: a completed request counts O output tokens (docs/behavior.md#q5)", () => {
  const r = run(simConfig({ latency: trainedPhysics(), kv: { totalKvBlocks: 26312 } }), [
    req("a", 0, 512, 4),
    req("b", 500_000, 100, 1),
  ]);
  assert.equal(r.metrics.cluster.total_output_tokens, 4 + 1);
});

/**
 * Three requests on 3 KV blocks of 4 tokens with SLO-aware preemption: H1 (critical, prompt 1),
 * S (sheddable, prompt 3), H2 (critical, prompt 1), each with 6 output tokens. In the step where
 * S's KV block is full and none is free, S evicts itself (lowest tier), which ends the
 * running-batch pass: H2, behind it, is not scheduled in that step.
 */
function skipScenario(timeline: Timeline) {
  const model = new FixedModel(timeline);
  const reqs = [
    req("H1", 0, 1, 6, { sloClass: "critical" }),
    req("S", 1, 3, 6, { sloClass: "sheddable" }),
    req("H2", 2, 1, 6, { sloClass: "critical" }),
  ];
  const states: { step: number; preemptions: number; d: number; h2: { pi: number; nnt: number } | null }[] = [];
  const observer = {
    afterEvent() {},
    afterStep(inst: Instance) {
      const h2 = inst.running.find((x) => x.id === "H2");
      states.push({
        step: inst.stepCount,
        preemptions: inst.preemptionCount,
        d: inst.lastStepDuration,
        h2: h2 ? { pi: h2.pi, nnt: h2.numNewTokens } : null,
      });
    },
  };
  const r = run(
    simConfig({ latency: () => model, kv: { blockSize: 4, totalKvBlocks: 3 }, policy: { preemption: "slo-aware" } }),
    reqs,
    {
      instanceObserver: observer,
    },
  );
  const k = states.findIndex((s) => s.preemptions > 0);
  assert.ok(k > 0, "S was preempted");
  return { r, before: states[k - 1]!, at: states[k]!, model };
}

test("current timeline: a request left out of a step does not advance, and the step costs only what was scheduled", () => {
  const { r, before, at } = skipScenario("current");
  assert.ok(before.h2 !== null && at.h2 !== null);
  assert.equal(at.h2.nnt, 0, "H2 not scheduled in the preempting step");
  assert.equal(at.h2.pi, before.h2.pi, "H2 did not advance");
  assert.equal(at.d, 100 + 2, "only H1's decode (at PI 3, prompt 1) is costed");
  // Every request completes with O − 1 ITL entries, plus S's one decode before its preemption,
  // which it keeps (docs/behavior.md#q7).
  assert.equal(r.metrics.cluster.completed_requests, 3);
  assert.equal(itlEntries(r).length, 3 * 5 + 1);
  for (const id of ["H1", "S", "H2"]) assert.equal(record(r, id).completed, true);
});

test("seed timeline: the same left-out request still advances with its stale token count (docs/behavior.md#q12)", () => {
  const { r, before, at } = skipScenario("seed");
  assert.ok(before.h2 !== null && at.h2 !== null);
  assert.equal(at.h2.pi, before.h2.pi + 1, "H2 advanced");
  assert.equal(at.h2.nnt, 1, "with the previous step's count");
  assert.ok(at.d > 100 + 2, "and is costed");
  assert.equal(r.metrics.cluster.completed_requests, 3);
});

/**
 * Two requests with the same 32-token prompt (a multiple of the block size), the second arriving
 * after the first has finished: its whole prompt is a cached prefix, so it is admitted with zero
 * new tokens (docs/behavior.md#q10).
 */
function cachedPromptRun(latency: () => LatencyModel) {
  const prompt = Array.from({ length: 32 }, (_, i) => i + 1);
  const reqs = [
    makeRequest("a", 0, prompt, [900, 901, 902, 903]),
    makeRequest("b", 1_000_000, prompt, [904, 905, 906, 907]),
  ];
  let maxOverrun = 0;
  const observer = {
    afterEvent() {},
    afterStep(inst: Instance) {
      for (const x of inst.running) maxOverrun = Math.max(maxOverrun, x.pi - (x.inputLen + x.outputLen - 1));
    },
  };
  const r = run(simConfig({ latency, kv: { totalKvBlocks: 1000 } }), reqs, { instanceObserver: observer });
  return { r, maxOverrun };
}

test("seed timeline: a fully cached prompt is admitted with zero new tokens and completes normally", () => {
  const { r, maxOverrun } = cachedPromptRun(() => new FixedModel("seed"));
  assert.equal(maxOverrun, 0);
  assert.equal(record(r, "b").completed, true);
  assert.equal(r.instances[0]!.stepCount, 8);
  assert.equal(r.metrics.cluster.total_output_tokens, 6);
});

test("current timeline: a fully cached prompt completes after O − 1 decodes", () => {
  for (const latency of [() => new FixedModel("current"), trainedPhysics()]) {
    const { r, maxOverrun } = cachedPromptRun(latency);
    assert.equal(maxOverrun, 0, "PI never passes L + O − 1");
    assert.equal(record(r, "b").completed, true);
    assert.ok(r.instances[0]!.stepCount <= 10, `steps: ${r.instances[0]!.stepCount}`);
    assert.ok(record(r, "b").e2e < 2 * record(r, "a").e2e);
  }
});

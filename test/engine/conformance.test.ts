// RNG-free engine conformance vectors (docs/behavior.md "Reference numbers").
import { test } from "node:test";
import assert from "node:assert/strict";
import { EV_STEP } from "../../src/engine/eventQueue.js";
import { BlackboxLatencyModel } from "../../src/latency/blackbox.js";
import { LLAMA_H100_TP2, record, req, run, simConfig } from "../helpers/sim.js";
import type { Instance } from "../../src/instance/instance.js";

function stepRecorder() {
  const steps: number[] = [];
  let peak = 0;
  return {
    steps,
    peak: () => peak,
    hooks: {
      instanceObserver: {
        afterEvent(_i: Instance, t: number, kind: number) {
          if (kind === EV_STEP) steps.push(t);
        },
        afterStep(inst: Instance) {
          peak = Math.max(peak, inst.kv.used);
        },
      },
    },
  };
}

test("blackbox step-time arithmetic with llama-3.1-8b H100 TP2 coefficients", () => {
  const m = new BlackboxLatencyModel(LLAMA_H100_TP2.alpha, LLAMA_H100_TP2.beta);
  const view = (pi: number, L: number, O: number, n: number) => ({ pi, inputLen: L, outputLen: O, numNewTokens: n });
  assert.equal(m.stepTime([view(512, 512, 4, 1), view(0, 100, 3, 100)], 2), 8680);
  assert.equal(m.queueingTime(512), 3399);
  assert.equal(m.stepTime([view(0, 512, 4, 512)], 1), 15957);
  assert.equal(m.stepTime([view(512, 512, 4, 1)], 1), 6913);
  assert.equal(m.stepTime([view(512, 512, 4, 1), view(100, 100, 3, 1)], 2), 6916);
  assert.equal(m.outputTokenProcessingTime(), 1805);
  assert.equal(m.stepTime([], 0), 6910);
});

test("worked timeline: two requests on one instance", () => {
  const rec = stepRecorder();
  const r = run(
    simConfig({ ...LLAMA_H100_TP2, kv: { totalKvBlocks: 132139 } }),
    [req("A", 0, 512, 4), req("B", 3000, 100, 3)],
    rec.hooks,
  );
  assert.deepEqual(rec.steps, [3399, 19356, 28036, 34952]);
  const a = record(r, "A");
  const b = record(r, "B");
  assert.equal(a.ttft, 21161);
  assert.equal(a.e2e, 57809);
  assert.equal(a.itl, 12216);
  assert.equal(a.sched, 3399);
  assert.equal(b.ttft, 26841);
  assert.equal(b.e2e, 53004);
  assert.equal(b.sched, 16356);
  assert.equal(r.metrics.cluster.total_output_tokens, 5);
  assert.equal(r.instances[0]!.simEnded(), 41868);
  // Pooled ITL: A [10485, 8721, 8721, 8721] and B [8721, 8721, 8721]
  assert.equal(r.metrics.cluster.itl_mean_ms, (10485 + 6 * 8721) / 7 / 1000);
});

test("single request L=512, O=4", () => {
  const rec = stepRecorder();
  const r = run(simConfig({ ...LLAMA_H100_TP2, kv: { totalKvBlocks: 132139 } }), [req("R", 0, 512, 4)], rec.hooks);
  assert.deepEqual(rec.steps, [3399, 19356, 26269, 33182]);
  const x = record(r, "R");
  assert.equal(x.ttft, 21161);
  assert.equal(x.e2e, 56033);
  assert.equal(x.itl, 11624);
  assert.equal(x.sched, 3399);
  assert.equal(r.metrics.cluster.total_output_tokens, 3);
  assert.equal(rec.peak(), 33);
  assert.equal(r.instances[0]!.simEnded(), 40095);
  assert.equal(r.metrics.cluster.itl_mean_ms, 8.718);
  assert.equal(r.metrics.cluster.vllm_estimated_duration_s, 0.040095);
});

test("L=100 with O=1 and O=0", () => {
  const rec = stepRecorder();
  const r1 = run(simConfig({ ...LLAMA_H100_TP2 }), [req("R", 0, 100, 1)], rec.hooks);
  assert.deepEqual(rec.steps, [1952]);
  const x = record(r1, "R");
  assert.equal(x.ttft, 12434);
  assert.equal(x.e2e, 22916);
  assert.equal(r1.metrics.cluster.total_output_tokens, 0);
  assert.equal(r1.metrics.cluster.itl_mean_ms, 10.482);
  assert.equal(r1.instances[0]!.simEnded(), 10629);

  const r0 = run(simConfig({ ...LLAMA_H100_TP2 }), [req("R", 0, 100, 0)]);
  const y = record(r0, "R");
  assert.equal(y.ttft, 12434);
  assert.equal(y.e2e, 12434);
  assert.equal(y.itl, 0);
  assert.equal(r0.metrics.cluster.itl_mean_ms, 0);
});

test("zero-token admission of a fully cached, block-aligned prompt", () => {
  const x = req("X", 0, 32, 2);
  const prompt = Array.from(x.tokens.subarray(0, 32));
  const y = req("Y", 100000, prompt, 2);
  const r = run(simConfig({ alpha: [0, 0, 0], beta: [1000, 1, 1], kv: { totalKvBlocks: 1000 } }), [x, y]);
  assert.equal(record(r, "X").ttft, 1032);
  assert.equal(record(r, "X").e2e, 3034);
  assert.equal(record(r, "Y").ttft, 1000);
  assert.equal(record(r, "Y").e2e, 3002);
  const kv = r.instances[0]!.kv;
  assert.equal(kv.hits, 0);
  assert.equal(kv.misses, 4);
  assert.equal(r.metrics.kv.cacheHitRate, 0);
});

test("same-tick Queued events create a second step chain (docs/behavior.md#q1)", () => {
  const rec = stepRecorder();
  const r = run(
    simConfig({ alpha: [0, 0, 0], beta: [1000, 1, 1] }),
    [req("A", 0, 32, 2), req("B", 0, 32, 2)],
    rec.hooks,
  );
  assert.deepEqual(rec.steps, [0, 0, 1064]);
  for (const id of ["A", "B"]) {
    assert.equal(record(r, id).ttft, 1064);
    assert.equal(record(r, id).e2e, 3068);
  }
  assert.equal(r.metrics.cluster.total_output_tokens, 2);
  assert.equal(r.instances[0]!.simEnded(), 1064);
});

test("with the leak fixed (docs/behavior.md#q8): tight KV preempts and frees blocks instead of wedging", () => {
  const r = run(simConfig({ alpha: [0, 0, 0], beta: [1000, 1, 1], kv: { blockSize: 4, totalKvBlocks: 3 } }), [
    req("P", 0, 4, 10),
    req("Q", 10, 4, 10),
  ]);
  // Each request needs ceil((4 + 10 - 1) / 4) = 4 blocks to complete: more than the 3 available,
  // so both are dropped as unservable rather than preempting themselves forever.
  assert.equal(r.metrics.cluster.dropped_unservable, 2);
  assert.equal(r.instances[0]!.kv.used, 0);

  const r2 = run(simConfig({ alpha: [0, 0, 0], beta: [1000, 1, 1], kv: { blockSize: 4, totalKvBlocks: 4 } }), [
    req("P", 0, 4, 10),
    req("Q", 10, 4, 10),
  ]);
  assert.equal(r2.metrics.cluster.completed_requests, 2);
  assert.ok(r2.metrics.cluster.preemption_count > 0);
  assert.equal(r2.instances[0]!.kv.used, 0);
});

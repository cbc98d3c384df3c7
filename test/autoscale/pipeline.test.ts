// The autoscaler pipeline stage by stage (docs/autoscaling.md): the worked example of the
// saturation analyzer and exact-N sizing, the stabilization windows, and the analyzer's invariants.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SaturationAnalyzer } from "../../src/autoscale/analyzer.js";
import { engines, stabilizers } from "../../src/autoscale/registries.js";
import "../../src/autoscale/builtins.js";
import type { Decision, ModelSignals, ReplicaSignal } from "../../src/autoscale/types.js";

const H100 = { gpu: "H100", tp: 1 };
const analyzer = new SaturationAnalyzer({
  kv_cache_threshold: 0,
  scale_up_threshold: 0,
  scale_down_boundary: 0,
  avg_input_tokens: 0,
});
const unlimited = engines.create("unlimited", {}, { freeSlots: () => Infinity });

function replica(index: number, usedBlocks: number, queue: number): ReplicaSignal {
  return {
    index,
    variant: H100,
    cost: 0,
    queueDepth: queue,
    inFlight: 0,
    kvTokensInUse: usedBlocks * 16,
    kvCapacityTokens: 10000 * 16,
  };
}

function signals(replicas: ReplicaSignal[], pending = 0): ModelSignals {
  return { model: "m", replicas, pendingReplicas: pending, pendingCapacityTokens: pending * 160000 };
}

test("worked example, tick 30 s: one overloaded replica asks for exactly one more", () => {
  const a = analyzer.analyze(signals([replica(0, 7500, 20)]))!;
  assert.equal(a.totalDemand, 130240);
  assert.equal(a.totalSupply, 128000);
  assert.ok(Math.abs(a.requiredCapacity - 34800) < 1e-6);
  assert.equal(a.spareCapacity, 0);
  assert.deepEqual(unlimited.decide(a), { model: "m", variant: H100, delta: 1 });
});

test("worked example, tick 60 s: the loading replica's supply covers the demand", () => {
  const a = analyzer.analyze(signals([replica(0, 7500, 20)], 1))!;
  assert.equal(a.requiredCapacity, 0);
  assert.equal(a.spareCapacity, 0, "one replica: no spare");
  assert.equal(unlimited.decide(a), null);
});

test("worked example, later: three replicas with demand 20 000 drain two", () => {
  const a = analyzer.analyze(signals([replica(0, 1250, 0), replica(1, 0, 0), replica(2, 0, 0)]))!;
  assert.equal(a.totalDemand, 20000);
  assert.equal(a.spareCapacity, 334000);
  assert.deepEqual(unlimited.decide(a), { model: "m", variant: H100, delta: -2 });
});

test("no routable replica gives no signal", () => {
  assert.equal(analyzer.analyze(signals([], 2)), null);
});

test("greedy takes the cheapest variant with enough free GPUs", () => {
  const greedy = engines.create("greedy", {}, { freeSlots: (v) => (v.gpu === "A100" ? 4 : 0) });
  const a = analyzer.analyze({
    model: "m",
    replicas: [replica(0, 9000, 50), { ...replica(1, 9000, 50), variant: { gpu: "A100", tp: 1 }, cost: 5 }],
    pendingReplicas: 0,
    pendingCapacityTokens: 0,
  })!;
  assert.ok(a.requiredCapacity > 0);
  assert.equal(greedy.decide(a)!.variant.gpu, "A100");
  assert.equal(unlimited.decide(a)!.variant.gpu, "H100", "unlimited ignores inventory");
});

function gateRun(window: number, present: (t: number) => boolean): number[] {
  const st = stabilizers.create("window", {}, { upWindowUs: window, downWindowUs: window });
  const passed: number[] = [];
  for (let t = 0; t <= 360; t += 60) {
    const d: Decision[] = present(t) ? [{ model: "m", variant: H100, delta: 1 }] : [];
    if (st.gate(t, d).length > 0) passed.push(t);
  }
  return passed;
}

test("stabilization: a constant signal passes every window; a gap restarts it", () => {
  assert.deepEqual(
    gateRun(120, () => true),
    [120, 300],
  );
  assert.deepEqual(
    gateRun(120, (t) => t !== 60),
    [240],
  );
  assert.deepEqual(
    gateRun(0, () => true),
    [0, 60, 120, 180, 240, 300, 360],
  );
});

test("stabilization: a direction flip clears the other direction's timer", () => {
  const st = stabilizers.create("window", {}, { upWindowUs: 100, downWindowUs: 100 });
  const up: Decision = { model: "m", variant: H100, delta: 1 };
  const down: Decision = { model: "m", variant: H100, delta: -1 };
  assert.equal(st.gate(0, [up]).length, 0);
  assert.equal(st.gate(50, [down]).length, 0);
  assert.equal(st.gate(100, [up]).length, 0, "the up window restarted at 100");
  assert.equal(st.gate(200, [up]).length, 1);
});

test("analyzer invariants: variant sums equal the totals; required > 0 means no spare", () => {
  const r = fc.record({
    used: fc.integer({ min: 0, max: 10000 }),
    queue: fc.integer({ min: 0, max: 400 }),
    gpu: fc.constantFrom("A", "B", "C"),
    cost: fc.constantFrom(0, 1, 2),
  });
  fc.assert(
    fc.property(fc.array(r, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 3 }), (rs, pending) => {
      const replicas = rs.map((x, i) => ({
        ...replica(i, x.used, x.queue),
        variant: { gpu: x.gpu, tp: 1 },
        cost: x.cost,
      }));
      const a = analyzer.analyze(signals(replicas, pending))!;
      const supply = a.variants.reduce((s, v) => s + v.supply, 0);
      const demand = a.variants.reduce((s, v) => s + v.demand, 0);
      assert.ok(Math.abs(supply - a.totalSupply) < 1e-6 && Math.abs(demand - a.totalDemand) < 1e-6);
      if (a.requiredCapacity > 0) assert.equal(a.spareCapacity, 0);
      const d = unlimited.decide(a);
      if (d !== null) {
        assert.notEqual(d.delta, 0);
        if (d.delta < 0) assert.ok(-d.delta <= rs.length);
      }
    }),
  );
});

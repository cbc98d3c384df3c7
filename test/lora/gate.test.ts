// The cold-load gate, head-of-line blocking, pins and the step-time factor on one instance.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Instance } from "../../src/instance/instance.js";
import { record, req, run, simConfig } from "../helpers/sim.js";
import type { LoraConfig } from "../../src/lora/resolve.js";
import { loraConfig, withLora } from "./helpers.js";
import { EV_STEP } from "../../src/engine/eventQueue.js";

/** A1 (adapter a), B1 (adapter b), N (no adapter), in that order at t = 0; loads take 108 ticks. */
function hol(lora: LoraConfig) {
  const cfg = { ...simConfig(), features: [withLora(lora)] };
  const seen: string[] = [];
  const steps: number[] = [];
  let aRunning = false;
  let aLeave = -1;
  const observer = {
    afterEvent(_inst: Instance, t: number, kind: number) {
      if (kind === EV_STEP) steps.push(t);
    },
    afterStep(inst: Instance) {
      const a = inst.running.some((r) => r.id === "A1");
      if (aRunning && !a) aLeave = inst.clock + inst.lastStepDuration;
      aRunning = a;
      for (const r of inst.running) {
        if (r.adapter !== "" && !inst.lora!.resident.has(r.adapter)) seen.push(`${r.id} runs without ${r.adapter}`);
      }
      if (inst.lora!.resident.size > lora.capacity) seen.push("over capacity");
    },
  };
  const res = run(
    cfg,
    [req("A1", 0, 32, 4, { adapter: "a" }), req("B1", 0, 32, 4, { adapter: "b" }), req("N", 0, 32, 4)],
    {
      instanceObserver: observer,
    },
  );
  return { res, seen, steps, aLeave };
}

test("cold load: the head waits for its adapter, and everything behind it waits too", () => {
  const { res, seen, aLeave } = hol(loraConfig({ a: 8, b: 8 }));
  assert.deepEqual(seen, []);
  const a = record(res, "A1");
  const b = record(res, "B1");
  const n = record(res, "N");
  // 100 + ceil(8 × 1 / 1) = 108: A1 starts when its load completes.
  assert.equal(a.sched, 108);
  // B1's adapter can load only once A1 has completed and unpinned a (one slot): A1 leaves at 108 + its run.
  assert.ok(aLeave > 108);
  assert.equal(b.sched, aLeave + 108);
  assert.equal(n.sched, b.sched, "N has no adapter but waits behind B1 (head-of-line blocking)");
  const lora = res.instances[0]!.lora!;
  assert.deepEqual(Object.fromEntries(lora.counts), { a: { loads: 1, evictions: 1 }, b: { loads: 1, evictions: 0 } });
  assert.equal(lora.resident.totalPins(), 0, "every pin released");
  assert.equal(lora.pinnedRequests, 0);
});

test("two slots: both adapters load one after the other, no eviction", () => {
  const { res, seen, steps } = hol(loraConfig({ a: 8, b: 8 }, { capacity: 2 }));
  assert.deepEqual(seen, []);
  assert.equal(record(res, "A1").sched, 108);
  // The gate looks at the head only: b starts loading at the step after the one admitting A1 at
  // 108 (the steps at 0 found a loading), and B1 joins at the first step after the load.
  const i = steps.indexOf(108);
  assert.ok(i > 0 && steps.slice(0, i).every((t) => t === 0));
  const bLoaded = steps[i + 1]! + 108;
  assert.equal(
    record(res, "B1").sched,
    steps.find((t) => t >= bLoaded),
  );
  const lora = res.instances[0]!.lora!;
  assert.deepEqual(Object.fromEntries(lora.counts), { a: { loads: 1, evictions: 0 }, b: { loads: 1, evictions: 0 } });
});

test("the step-time factor scales the steps that schedule adapter requests", () => {
  const plain = run(simConfig(), [req("X", 0, 32, 4)]);
  const base = record(plain, "X").ttft;
  const tiers = [{ rank: 8, k6: 0.5, k7: 1 }];
  const res = run({ ...simConfig(), features: [withLora(loraConfig({ a: 8 }, { tiers }))] }, [
    req("X", 0, 32, 4, { adapter: "a" }),
  ]);
  assert.equal(record(res, "X").ttft, 108 + Math.max(1, Math.floor(base * 1.5)));
  const none = run({ ...simConfig(), features: [withLora(loraConfig({ a: 8 }, { tiers }))] }, [req("X", 0, 32, 4)]);
  assert.equal(record(none, "X").ttft, base, "a request without adapter pays nothing");
});

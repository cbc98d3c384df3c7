// Load duration, tier choice and the step-time factor on hand-computed values (docs/lora.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadDuration, scaledStepTime, tierFor } from "../../src/lora/instanceLora.js";
import { ResidentSet } from "../../src/lora/residentSet.js";
import { EventQueue, EV_ADAPTER_LOAD, EV_STEP, EV_TIMEOUT } from "../../src/engine/eventQueue.js";
import { loraConfig } from "./helpers.js";

test("load duration is max(1, ceil(base + ceil(rank × footprint / bandwidth)))", () => {
  // BLIS's shipped coefficients: 1500 + ceil(16 × 2e6 / 2e6) = 1516.
  assert.equal(loadDuration(loraConfig({ a: 16 }, { base: 1500, footprint: 2e6, bandwidth: 2e6 }), 16), 1516);
  // ceil(3 × 1000 / 300) = 10; 1500 + 10.
  assert.equal(loadDuration(loraConfig({ a: 3 }, { base: 1500, footprint: 1000, bandwidth: 300 }), 3), 1510);
  // Inner ceiling first: ceil(7 × 1 / 2) = 4, then ceil(0.5 + 4) = 5 (not ceil(0.5 + 3.5) = 4).
  assert.equal(loadDuration(loraConfig({ a: 7 }, { base: 0.5, footprint: 1, bandwidth: 2 }), 7), 5);
  // A tiny transfer still takes a tick, and a free load one tick.
  assert.equal(loadDuration(loraConfig({ a: 1 }, { base: 0, footprint: 1, bandwidth: 1e12 }), 1), 1);
  assert.equal(loadDuration(loraConfig({ a: 8 }, { base: 2.2, footprint: 1, bandwidth: 8 }), 8), 4);
});

const TIERS = [
  { rank: 8, k6: 0.02, k7: 1 },
  { rank: 16, k6: 0.035, k7: 1 },
  { rank: 32, k6: 0.06, k7: 1 },
];

test("tier choice: exact rank first, else nearest, ties to the smaller tier rank", () => {
  assert.equal(tierFor(TIERS, 16)!.rank, 16);
  assert.equal(tierFor(TIERS, 12)!.rank, 8, "12 is 4 from both 8 and 16");
  assert.equal(tierFor(TIERS, 24)!.rank, 16, "24 is 8 from both 16 and 32");
  assert.equal(tierFor(TIERS, 13)!.rank, 16);
  assert.equal(tierFor(TIERS, 1)!.rank, 8);
  assert.equal(tierFor(TIERS, 64)!.rank, 32);
  assert.equal(tierFor([], 16), null);
});

test("step time = max(1, floor(base × (1 + (k6/k7) × A)))", () => {
  assert.equal(scaledStepTime(1000, 2, TIERS[1]!), 1070);
  assert.equal(scaledStepTime(999, 3, { rank: 8, k6: 0.5, k7: 2 }), Math.floor(999 * 1.75));
  assert.equal(scaledStepTime(1000, 0, TIERS[0]!), 1000, "no adapter: unchanged");
  assert.equal(scaledStepTime(1000, 4, null), 1000, "no tiers: unchanged");
  assert.equal(scaledStepTime(0, 1, TIERS[0]!), 1, "at least one tick");
});

test("resident set: touch reorders, eviction takes the least recent unpinned adapter, pinned ones stay", () => {
  const s = new ResidentSet(3);
  s.insert("a");
  s.insert("b");
  s.insert("c");
  assert.ok(s.isFull());
  s.touch("a");
  assert.deepEqual(s.ids(), ["b", "c", "a"]);
  s.pin("b");
  assert.equal(s.evictLru(), "c", "b is pinned, c is the least recent unpinned");
  s.insert("d");
  s.pin("a");
  s.pin("d");
  assert.equal(s.evictLru(), null, "every slot pinned");
  s.unpin("a");
  assert.equal(s.evictLru(), "a");
  assert.throws(() => s.unpin("a"), /not pinned/);
  assert.equal(s.totalPins(), 2);
});

test("an adapter load completion runs before a step and after arrivals at the same tick", () => {
  const q = new EventQueue<null>();
  q.push(5, EV_TIMEOUT, null);
  q.push(5, EV_STEP, null);
  q.push(5, EV_ADAPTER_LOAD, null);
  const kinds: number[] = [];
  while (q.size > 0) {
    kinds.push(q.peekKind());
    q.pop();
  }
  assert.deepEqual(kinds, [EV_ADAPTER_LOAD, EV_STEP, EV_TIMEOUT]);
});

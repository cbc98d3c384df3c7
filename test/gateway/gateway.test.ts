import { test } from "node:test";
import assert from "node:assert/strict";
import { RANK_EVICT, RANK_TICK, RANK_TTL } from "../../src/gateway/gateway.js";
import { utilization } from "../../src/gateway/detectors.js";
import { priorityMap } from "../../src/gateway/priorities.js";
import { state } from "../cluster/helpers.js";
import { fakeGateway, req } from "./helpers.js";
import { mkReq, tokens } from "../cluster/helpers.js";
import type { Request } from "../../src/core/request.js";

test("priorities: defaults, unknown classes at 3, bundle overrides", () => {
  const p = priorityMap();
  assert.deepEqual(
    ["critical", "standard", "batch", "sheddable", "background", "", "gold"].map(p),
    [4, 3, -1, -2, -3, 3, 3],
  );
  const o = priorityMap({ batch: 2, gold: 10 });
  assert.deepEqual([o("batch"), o("gold"), o("sheddable"), o("")], [2, 10, -2, 3]);
});

test("worked example: utilization saturation of two instances is 1.1625", () => {
  const s = utilization(
    state([
      { queueDepth: 6, kvUtilization: 0.4 },
      { queueDepth: 4, kvUtilization: 0.9 },
    ]),
    5,
    0.8,
  );
  assert.ok(Math.abs(s - 1.1625) < 1e-12, String(s));
  assert.equal(utilization(state([]), 5, 0.8), 1, "no candidates: saturated");
});

test("worked example: band ceilings 1.0 / 0.75 / 0.5 with three bands and τ = 0.5", () => {
  const f = fakeGateway({ usageLimit: 0.5 });
  f.setSaturation(1.1625);
  f.gw.enqueue(req("c1", "critical"), 0);
  f.gw.enqueue(req("s1", "standard"), 0);
  f.gw.enqueue(req("x1", "sheddable"), 0);
  f.gw.enqueue(req("c2", "critical"), 0);
  assert.deepEqual(f.dispatched, [], "s ≥ 1: nothing dispatches");
  f.setSaturation(0.6);
  f.gw.attempt(1);
  f.gw.attempt(2);
  f.gw.attempt(3);
  assert.deepEqual(f.dispatched, ["c1", "c2", "s1"], "critical first, then standard (0.6 < 0.75)");
  f.gw.attempt(4);
  assert.deepEqual(f.dispatched, ["c1", "c2", "s1"], "the sheddable band is blocked (0.6 ≥ 0.5)");
  f.setSaturation(0.49);
  f.gw.attempt(5);
  assert.deepEqual(f.dispatched, ["c1", "c2", "s1", "x1"]);
});

test("the ceiling is checked before looking at whether a band is empty", () => {
  const f = fakeGateway({ usageLimit: 0.5 });
  f.setSaturation(2);
  f.gw.enqueue(req("c", "critical"), 0);
  f.gw.enqueue(req("x", "sheddable"), 0);
  f.setSaturation(0.8); // critical empty after this attempt; standard was never seen
  f.gw.attempt(1);
  assert.deepEqual(f.dispatched, ["c"]);
  f.gw.attempt(2);
  assert.deepEqual(f.dispatched, ["c"], "two bands: ceilings 1 and 0.5; 0.8 blocks the sheddable band");
});

test("worked example: queue shedding removes the latest lowest-priority sheddable entry", () => {
  const f = fakeGateway({ maxDepth: 2, shedding: true });
  f.setSaturation(5);
  assert.equal(f.gw.enqueue(req("r1", "sheddable"), 0), "enqueued");
  assert.equal(f.gw.enqueue(req("r2", "batch"), 0), "enqueued");
  assert.equal(f.gw.enqueue(req("r3", "critical"), 0), "shed-victim");
  assert.equal(f.gw.shedVictims, 1);
  assert.deepEqual(f.gw.shed.sorted(), [["sheddable", 1]]);
  assert.deepEqual([...f.gw.queue.bands.flatMap((b) => [...b.entries()].map((e) => e.req.id))], ["r3", "r2"]);
  // A batch arrival does not outrank the remaining batch entry: rejected.
  assert.equal(f.gw.enqueue(req("r4", "batch"), 0), "rejected");
  assert.equal(f.gw.rejected, 1);
});

test("worked example: without shedding a full queue rejects", () => {
  const f = fakeGateway({ maxDepth: 2 });
  f.setSaturation(5);
  f.gw.enqueue(req("r1", "sheddable"), 0);
  f.gw.enqueue(req("r2", "batch"), 0);
  assert.equal(f.gw.enqueue(req("r3", "critical"), 0), "rejected");
  assert.deepEqual([f.gw.rejected, f.gw.shedVictims, f.gw.queue.size], [1, 0, 2]);
});

test("per-band capacity rejects without displacing anything", () => {
  const f = fakeGateway({ perBand: 1 });
  f.setSaturation(5);
  assert.equal(f.gw.enqueue(req("a", "standard"), 0), "enqueued");
  assert.equal(f.gw.enqueue(req("b", "standard"), 0), "rejected");
  assert.equal(f.gw.enqueue(req("c", "critical"), 0), "enqueued");
});

test("TTL: a waiting request expires once and counts as shed; a dispatched one does not", () => {
  const f = fakeGateway({ ttl: 500 });
  f.setSaturation(5);
  const a = req("a", "standard");
  const b = req("b", "");
  f.gw.enqueue(a, 0);
  f.gw.enqueue(b, 10);
  assert.deepEqual(
    f.events.filter((e) => e.rank === RANK_TTL),
    [
      { t: 500, rank: RANK_TTL, id: "a" },
      { t: 510, rank: RANK_TTL, id: "b" },
    ],
  );
  f.setSaturation(0);
  f.gw.attempt(20);
  assert.deepEqual(f.dispatched, ["a"]);
  f.gw.onEvent(RANK_TTL, a, 500);
  f.gw.onEvent(RANK_TTL, b, 510);
  f.gw.onEvent(RANK_TTL, b, 510);
  assert.deepEqual([f.gw.expired, f.gw.queue.size], [1, 0]);
  assert.deepEqual(f.gw.shed.sorted(), [["standard", 1]], "an empty class counts as standard");
});

test("dispatch tick: one pending at a time, rescheduled while the queue is non-empty", () => {
  const f = fakeGateway({ tick: 100 });
  f.setSaturation(5);
  f.gw.enqueue(req("a", "standard"), 0);
  f.gw.enqueue(req("b", "standard"), 5);
  assert.deepEqual(
    f.events.filter((e) => e.rank === RANK_TICK).map((e) => e.t),
    [100],
  );
  f.setSaturation(0);
  f.gw.onEvent(RANK_TICK, null, 100);
  assert.deepEqual(f.dispatched, ["a"]);
  assert.deepEqual(
    f.events.filter((e) => e.rank === RANK_TICK).map((e) => e.t),
    [100, 200],
  );
  f.gw.onEvent(RANK_TICK, null, 200);
  assert.deepEqual(f.dispatched, ["a", "b"]);
  assert.equal(f.events.filter((e) => e.rank === RANK_TICK).length, 2, "queue empty: no further tick");
});

test("fairness: global-strict takes the oldest head, round-robin alternates tenants", () => {
  const order = (roundRobin: boolean): string[] => {
    const f = fakeGateway({ roundRobin });
    f.setSaturation(5);
    for (const [id, t] of [
      ["a1", "alice"],
      ["a2", "alice"],
      ["a3", "alice"],
      ["b1", "bob"],
      ["b2", "bob"],
    ]) {
      f.gw.enqueue(req(id!, "standard", t), 0);
    }
    f.setSaturation(0);
    for (let i = 0; i < 5; i++) f.gw.attempt(i + 1);
    return f.dispatched;
  };
  assert.deepEqual(order(false), ["a1", "a2", "a3", "b1", "b2"]);
  assert.deepEqual(order(true), ["a1", "b1", "a2", "b2", "a3"]);
});

test("slo-deadline: the smallest enqueue + target first inside a flow", () => {
  const f = fakeGateway({ byDeadline: true, targets: new Map([["critical", 100]]) });
  f.setSaturation(5);
  f.gw.enqueue(req("late", "critical"), 50); // deadline 150
  f.gw.enqueue(req("early", "critical"), 0); // deadline 100 (enqueued after, but due first)
  f.gw.enqueue(req("tie", "critical"), 0); // deadline 100, a larger sequence number than "early"
  f.setSaturation(0);
  f.gw.attempt(60);
  f.gw.attempt(61);
  f.gw.attempt(62);
  assert.deepEqual(f.dispatched, ["early", "tie", "late"]);
});

test("worked example: in-flight eviction, background before sheddable before batch, latest dispatched first", () => {
  const f = fakeGateway({ eviction: true });
  const routed = [
    ["b1", "batch", 10],
    ["s1", "sheddable", 10],
    ["s2", "sheddable", 20],
    ["g1", "background", 5],
    ["c1", "critical", 30],
  ] as const;
  for (const [id, cls, t] of routed) f.gw.onRouted(req(id, cls), 0, t);
  assert.equal(f.gw.tracker.size, 4, "only sheddable classes are tracked");
  f.setSaturation(1.2);
  f.gw.enqueue(req("w", "critical"), 40);
  f.gw.attempt(41);
  f.gw.attempt(42);
  f.gw.attempt(43);
  f.gw.attempt(44);
  const evicts = f.events.filter((e) => e.rank === RANK_EVICT).map((e) => e.id);
  assert.deepEqual(evicts, ["g1", "s2", "s1", "b1"]);
  assert.deepEqual(f.dispatched, [], "an attempt that evicts dispatches nothing");
});

test("no eviction for a waiting sheddable request only", () => {
  const f = fakeGateway({ eviction: true });
  f.gw.onRouted(req("s1", "sheddable"), 0, 1);
  f.setSaturation(1.5);
  f.gw.enqueue(req("w", "batch"), 2);
  assert.equal(f.events.filter((e) => e.rank === RANK_EVICT).length, 0);
});

test("client deadlines: a request whose deadline passes in the queue leaves it once and is never dispatched", () => {
  const f = fakeGateway({ ttl: 500 });
  const withDeadline = (id: string, deadline: number): Request =>
    mkReq(id, tokens(4), { extra: { sloClass: "standard", deadline } });
  const a = withDeadline("a", 300);
  const b = withDeadline("b", 2000);
  f.setSaturation(2);
  f.gw.enqueue(a, 0);
  f.gw.enqueue(b, 0);
  assert.equal(f.gw.enqueue(withDeadline("late", 100), 100), "timed-out", "past due when admitted: never queued");
  f.gw.attempt(299);
  assert.deepEqual([f.gw.timedOut, f.gw.queue.size], [1, 2]);
  f.gw.attempt(300);
  assert.deepEqual([f.gw.timedOut, f.gw.queue.size], [2, 1], "a leaves at its deadline");
  f.gw.onEvent(RANK_TTL, a, 500);
  assert.equal(f.gw.expired, 0, "a timed-out request does not expire again");
  f.gw.onEvent(RANK_TTL, b, 500);
  assert.deepEqual([f.gw.expired, f.gw.queue.size], [1, 0]);
  f.gw.attempt(2000);
  assert.equal(f.gw.timedOut, 2, "an expired request does not time out again");
  assert.deepEqual(f.gw.shed.sorted(), [["standard", 1]], "timeouts are the client's, not shed");
  f.setSaturation(0);
  f.gw.enqueue(withDeadline("c", 3000), 2500);
  f.gw.attempt(3000);
  assert.deepEqual(f.dispatched, ["c"]);
  assert.equal(f.gw.timedOut, 2, "a dispatched request times out on its instance, not here");
});

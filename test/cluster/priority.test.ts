// Priority policies and instance schedulers (docs/behavior.md "Priorities and schedulers").
import { test } from "node:test";
import assert from "node:assert/strict";
import { priorityPolicies } from "../../src/policy/priority.js";
import { schedulers } from "../../src/policy/scheduler.js";
import { DEFAULT_SLO_PARAMS, type SloParams } from "../../src/policy/sloTiers.js";
import { mkReq, tokens } from "./helpers.js";
import { record, req, run, simConfig } from "../helpers/sim.js";
import type { Request } from "../../src/core/request.js";
import type { SimConfig } from "../../src/sim/simConfig.js";
import type { WorkloadRequest } from "../../src/core/workloadRequest.js";

const prio = (name: string, slo: SloParams = DEFAULT_SLO_PARAMS) => priorityPolicies.create(name, {}, { slo });
const sched = (name: string) => schedulers.create(name, {}, {});

function sortIds(name: string, reqs: Request[]): string[] {
  const s = sched(name);
  return [...reqs].sort((a, b) => s.compare(a, b)).map((r) => r.id);
}

test("policy and scheduler names", () => {
  assert.deepEqual(priorityPolicies.names(), [
    "constant",
    "inverted-slo",
    "slo-based",
    "slo-class",
    "slo-tiered",
    "static-class",
  ]);
  assert.deepEqual(schedulers.names(), ["fcfs", "priority-fcfs", "reverse-priority", "sjf"]);
});

test("static-class: today's class map, fixed, unknown classes as standard", () => {
  const p = prio("static-class");
  assert.equal(p.isConstant, true);
  const value = (sloClass: string): number => p.compute(mkReq("r", tokens(16), { extra: { sloClass } }), 9_000_000);
  assert.deepEqual(
    ["critical", "standard", "", "nightly", "batch", "sheddable", "background"].map(value),
    [4, 3, 3, 3, -1, -2, -3],
  );
});

test("constant, slo-based and inverted-slo values", () => {
  const r = mkReq("r", tokens(16), { arrival: 1000 });
  assert.equal(prio("constant").compute(r, 5_000_000), 0);
  assert.equal(prio("slo-based").compute(r, 2_001_000), 2.0);
  assert.equal(prio("slo-based").compute(r, 1000), 0);
  assert.equal(prio("slo-based").compute(r, 1500), 0.0005);
  assert.equal(prio("inverted-slo").compute(r, 2_001_000), -2.0);
  // slo-based ignores the SLO class.
  const c = mkReq("c", tokens(16), { arrival: 1000, extra: { sloClass: "critical" } });
  assert.equal(prio("slo-based").compute(c, 2_001_000), 2.0);
});

test("priority-fcfs: priority desc, then T0, then ID byte-wise (request_10 < request_9)", () => {
  const mk = (id: string, arrival: number, p: number) => {
    const r = mkReq(id, tokens(16), { arrival });
    r.priority = p;
    return r;
  };
  const rs = [
    mk("request_9", 5, 1),
    mk("request_10", 5, 1),
    mk("request_2", 3, 1),
    mk("request_1", 9, 2),
    mk("request_0", 0, 0),
  ];
  assert.deepEqual(sortIds("priority-fcfs", rs), ["request_1", "request_2", "request_10", "request_9", "request_0"]);
  assert.deepEqual(sortIds("reverse-priority", rs), ["request_0", "request_2", "request_10", "request_9", "request_1"]);
  // Exact floating-point equality: a tiny difference decides.
  const a = mk("a", 0, 0.1 + 0.2);
  const b = mk("b", 1, 0.3);
  assert.deepEqual(sortIds("priority-fcfs", [b, a]), ["a", "b"]);
});

test("sjf: prompt length asc, then T0, then ID; priorities ignored", () => {
  const mk = (id: string, arrival: number, len: number, p = 0) => {
    const r = mkReq(id, tokens(len), { arrival });
    r.priority = p;
    return r;
  };
  const rs = [mk("request_9", 4, 32, 100), mk("request_10", 4, 32), mk("x", 1, 32), mk("y", 9, 8), mk("z", 0, 64, 50)];
  assert.deepEqual(sortIds("sjf", rs), ["y", "x", "request_10", "request_9", "z"]);
  assert.equal(sched("fcfs").reorders, false);
});

test("slo-tiered: base[tier] + w·max(0, age − θ[tier]); slo-class = base[tier]", () => {
  const p = prio("slo-tiered");
  const at = (cls: string, arrival: number) => mkReq("r", tokens(16), { arrival, extra: { sloClass: cls } });
  const close = (a: number, b: number, msg: string) => assert.ok(Math.abs(a - b) < 1e-9, `${msg}: ${a} vs ${b}`);
  close(p.compute(at("critical", 0), 0), 10, "fresh critical");
  close(p.compute(at("critical", 0), 200_000), 12, "critical: θ = 0, +10/s");
  close(p.compute(at("standard", 0), 100_000), 5, "standard inside its grace period");
  close(p.compute(at("", 0), 600_000), 10, "unlabeled = standard tier");
  close(p.compute(at("sheddable", 0), 1_000_000), 10, "sheddable after 1.0 s ties a fresh critical");
  close(p.compute(at("batch", 0), 600_000), 6, "batch = sheddable tier");
  close(p.compute(at("background", 0), 50_000), 1, "background inside its grace period");
  const c = prio("slo-class");
  assert.equal(c.compute(at("critical", 0), 9e9), 10);
  assert.equal(c.compute(at("standard", 0), 9e9), 5);
  assert.equal(c.compute(at("", 0), 9e9), 5);
  assert.equal(c.compute(at("background", 0), 9e9), 1);
  // Custom parameters.
  const custom = prio("slo-tiered", {
    ...DEFAULT_SLO_PARAMS,
    baseCritical: 100,
    ageWeight: 0.001,
    thresholdCritical: 10,
  });
  close(custom.compute(at("critical", 0), 1010), 101, "custom");
});

test("slo-tiered starvation bound with defaults: sheddable overtakes a fresh critical after 1.0 s (0.6 s standard→critical, 0.5 s sheddable→standard)", () => {
  const p = prio("slo-tiered");
  const pf = sched("priority-fcfs");
  const race = (oldCls: string, freshCls: string, age: number) => {
    const now = 5_000_000;
    const old = mkReq("request_old", tokens(16), { arrival: now - age, extra: { sloClass: oldCls } });
    const fresh = mkReq("request_fresh", tokens(16), { arrival: now, extra: { sloClass: freshCls } });
    for (const r of [old, fresh]) r.priority = p.compute(r, now);
    return [fresh, old].sort((a, b) => pf.compare(a, b))[0]!.id === "request_old";
  };
  for (const [oldCls, freshCls, bound] of [
    ["sheddable", "critical", 1_000_000],
    ["standard", "critical", 600_000],
    ["sheddable", "standard", 500_000],
  ] as const) {
    assert.equal(race(oldCls, freshCls, bound - 1000), false, `${oldCls} vs ${freshCls} just before`);
    assert.equal(race(oldCls, freshCls, bound + 1000), true, `${oldCls} vs ${freshCls} just after`);
  }
});

// --- End to end on one instance with max-num-running-reqs 1 ---
// A blocker X occupies the only slot; the others wait, and the order in which they are scheduled
// afterwards is the wait-queue order chosen by the scheduler.
function scheduleOrder(policy: Partial<SimConfig["policy"]>, reqs: WorkloadRequest[], alpha = [0, 0, 0]): string[] {
  const r = run(simConfig({ alpha, beta: [1000, 0, 0], engine: { maxRunning: 1 }, policy }), reqs);
  return reqs
    .filter((x) => x.id !== "X")
    .map((x) => ({ id: x.id, s: x.arrival + record(r, x.id).sched })) // absolute scheduling time
    .sort((a, b) => a.s - b.s)
    .map((x) => x.id);
}

test("priority-fcfs + constant is NOT fcfs when queueing delays reorder enqueue order", () => {
  // α1 = 10 ticks per prompt token: A (T0 = 1, 400 tokens) is enqueued at 4001, after B (T0 = 2, 16 tokens) at 162.
  const reqs = [req("X", 0, 16, 20), req("A", 1, 400, 2), req("B", 2, 16, 2)];
  const alpha = [0, 10, 0];
  assert.deepEqual(scheduleOrder({ scheduler: "fcfs" }, reqs, alpha), ["B", "A"], "fcfs keeps enqueue order");
  assert.deepEqual(
    scheduleOrder({ scheduler: "priority-fcfs" }, reqs, alpha),
    ["A", "B"],
    "priority-fcfs + constant orders by T0",
  );
});

test("priority-fcfs + constant breaks T0 ties by ID byte-wise; fcfs keeps enqueue order", () => {
  const reqs = [
    req("X", 0, 16, 10),
    req("request_9", 5, 16, 2),
    req("request_10", 5, 16, 2),
    req("request_100", 5, 16, 2),
  ];
  assert.deepEqual(scheduleOrder({ scheduler: "fcfs" }, reqs), ["request_9", "request_10", "request_100"]);
  assert.deepEqual(scheduleOrder({ scheduler: "priority-fcfs" }, reqs), ["request_10", "request_100", "request_9"]);
});

test("sjf schedules the shortest waiting prompt first; reverse-priority + inverted-slo equals priority-fcfs + slo-based", () => {
  const reqs = [req("X", 0, 16, 10), req("L", 1, 300, 2), req("M", 2, 100, 2), req("S", 3, 20, 2), req("S2", 4, 20, 2)];
  assert.deepEqual(scheduleOrder({ scheduler: "sjf" }, reqs), ["S", "S2", "M", "L"]);
  const a = scheduleOrder({ scheduler: "priority-fcfs", priority: "slo-based" }, reqs);
  assert.deepEqual(a, ["L", "M", "S", "S2"], "oldest first");
  assert.deepEqual(scheduleOrder({ scheduler: "reverse-priority", priority: "inverted-slo" }, reqs), a);
  assert.deepEqual(scheduleOrder({ scheduler: "reverse-priority", priority: "slo-based" }, reqs), [
    "S2",
    "S",
    "M",
    "L",
  ]);
});

test("slo-class + priority-fcfs: critical, then standard/unlabeled, then sheddable tiers", () => {
  const reqs = [
    req("X", 0, 16, 10),
    req("b", 1, 16, 2, { sloClass: "batch" }),
    req("s", 2, 16, 2, { sloClass: "standard" }),
    req("c", 3, 16, 2, { sloClass: "critical" }),
    req("u", 4, 16, 2),
  ];
  assert.deepEqual(scheduleOrder({ scheduler: "priority-fcfs", priority: "slo-class" }, reqs), ["c", "s", "u", "b"]);
});

test("slo-tiered end to end: a sheddable request waiting > 1 s beats a fresh critical one, < 1 s it does not", () => {
  // Blocker steps are 1000 ticks; X finishes after ~O steps.
  const order = (blockerOut: number, criticalAt: number) =>
    scheduleOrder({ scheduler: "priority-fcfs", priority: "slo-tiered" }, [
      req("X", 0, 16, blockerOut),
      req("S", 1, 16, 2, { sloClass: "sheddable" }),
      req("C", criticalAt, 16, 2, { sloClass: "critical" }),
    ]);
  assert.deepEqual(order(1200, 1_190_000), ["S", "C"]);
  assert.deepEqual(order(900, 890_000), ["C", "S"]);
});

test("priority bridge: floor orders by SLO class under constant; hint never affects ordering; floor is inert under slo-tiered", () => {
  const reqs = [
    req("X", 0, 16, 10),
    req("shed", 1, 16, 2, { sloClass: "sheddable" }),
    req("std", 2, 16, 2, { sloClass: "standard" }),
    req("crit", 3, 16, 2, { sloClass: "critical" }),
  ];
  const base = { scheduler: "priority-fcfs", priority: "constant" } as const;
  assert.deepEqual(scheduleOrder({ ...base, priorityBridge: "none" }, reqs), ["shed", "std", "crit"]);
  assert.deepEqual(scheduleOrder({ ...base, priorityBridge: "floor" }, reqs), ["crit", "std", "shed"]);
  assert.deepEqual(
    scheduleOrder({ ...base, priorityBridge: "hint" }, reqs),
    ["shed", "std", "crit"],
    "docs/behavior.md#c2: a one-shot hint is overwritten by the per-step recomputation and never influences ordering",
  );
  const tiered = { scheduler: "priority-fcfs", priority: "slo-tiered" } as const;
  assert.deepEqual(
    scheduleOrder({ ...tiered, priorityBridge: "floor" }, reqs),
    scheduleOrder({ ...tiered, priorityBridge: "none" }, reqs),
  );
});

test("priority bridge hint is stored on the request before its first step (and a 0 base is not applied)", () => {
  const seen: [string, number][] = [];
  run(
    simConfig({ policy: { priorityBridge: "hint", slo: { ...DEFAULT_SLO_PARAMS, baseStandard: 0 } } }),
    [req("c", 0, 16, 2, { sloClass: "critical" }), req("s", 1, 16, 2, { sloClass: "standard" })],
    {
      clusterObserver: {
        onRouted: (r) => seen.push([r.id, r.priority]),
        onClock: () => {},
      },
    },
  );
  assert.deepEqual(seen, [
    ["c", 10],
    ["s", 0],
  ]);
});

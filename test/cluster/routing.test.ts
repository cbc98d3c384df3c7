// Routing policies on hand-built router states (docs/behavior.md "Routing and scorers") and
// end-to-end weight ratios.
import { test } from "node:test";
import assert from "node:assert/strict";
import { routingPolicies, type RoutingPolicy } from "../../src/cluster/routing/routing.js";
import { WeightedRouting } from "../../src/cluster/routing/weighted.js";
import type { ScorerSpec } from "../../src/cluster/scorers/scorer.js";
import type { RouterState } from "../../src/cluster/snapshot.js";
import { loads, mkReq, routingCtx, state, tokens } from "./helpers.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { requestRecords } from "../../src/metrics/collect.js";

function policy(name: string, n: number, scorers: ScorerSpec[] = []): RoutingPolicy {
  return routingPolicies.create(name, {}, routingCtx(n, { scorers }));
}

function route(p: RoutingPolicy, s: RouterState, prompt = tokens(16)) {
  const d = p.route(mkReq("r", prompt), s);
  return { target: d.target, reason: d.reason, scores: d.scores ? Array.from(d.scores) : null };
}

test("routing policy names", () => {
  assert.deepEqual(routingPolicies.names(), ["always-busiest", "least-loaded", "round-robin", "weighted"]);
});

test("round-robin: counter mod N, reason carries the counter value used, no scores", () => {
  const p = policy("round-robin", 3);
  const got = [0, 1, 2, 3, 4, 5, 6].map(() => route(p, loads(5, 0, 0)));
  assert.deepEqual(
    got.map((g) => g.target),
    [0, 1, 2, 0, 1, 2, 0],
  );
  assert.deepEqual(
    got.map((g) => g.reason),
    [
      "round-robin[0]",
      "round-robin[1]",
      "round-robin[2]",
      "round-robin[3]",
      "round-robin[4]",
      "round-robin[5]",
      "round-robin[6]",
    ],
  );
  assert.equal(got[0]!.scores, null);
});

test("least-loaded: smallest EffectiveLoad, ties → lowest index; reason shows the load", () => {
  const p = policy("least-loaded", 4);
  assert.deepEqual(route(p, loads(3, 1, 1, 2)), { target: 1, reason: "least-loaded (load=1)", scores: null });
  assert.deepEqual(route(p, loads(0, 0, 0, 0)), { target: 0, reason: "least-loaded (load=0)", scores: null });
  assert.deepEqual(route(p, loads(2, 2, 2, 1)).target, 3);
  // All three parts count.
  const s = state([{ queueDepth: 1 }, { batchSize: 1 }, { inFlight: 1 }, { queueDepth: 1, inFlight: 0 }]);
  assert.equal(route(p, s).target, 0);
  const s2 = state([{ queueDepth: 1, batchSize: 1 }, { batchSize: 1 }, { inFlight: 2 }]);
  assert.deepEqual(route(p, s2), { target: 1, reason: "least-loaded (load=1)", scores: null });
});

test("always-busiest: largest EffectiveLoad, ties → lowest index", () => {
  const p = policy("always-busiest", 4);
  assert.deepEqual(route(p, loads(1, 3, 3, 0)), { target: 1, reason: "always-busiest (load=3)", scores: null });
  assert.deepEqual(route(p, loads(0, 0, 0, 0)), { target: 0, reason: "always-busiest (load=0)", scores: null });
  assert.equal(route(p, loads(0, 0, 0, 9)).target, 3);
});

test("weighted: normalized weights, composite = Σ clamp(s)·w, reason with 3 decimals", () => {
  const p = policy("weighted", 3, [
    { name: "queue-depth", weight: 1 },
    { name: "kv-utilization", weight: 3 },
  ]);
  // loads [2, 0, 4] → queue-depth [0.5, 1, 0]; util [0.5, 0.9, 0] → kv [0.5, 0.1, 1]
  const s = state([
    { inFlight: 2, kvUtilization: 0.5 },
    { inFlight: 0, kvUtilization: 0.9 },
    { inFlight: 4, kvUtilization: 0 },
  ]);
  const g = route(p, s);
  const expect = [0.5 * 0.25 + 0.5 * 0.75, 1 * 0.25 + 0.1 * 0.75, 0 * 0.25 + 1 * 0.75];
  g.scores!.forEach((v, i) => assert.ok(Math.abs(v - expect[i]!) < 1e-12, `instance ${i}: ${v}`));
  assert.equal(g.target, 2);
  assert.equal(g.reason, "weighted-scoring (score=0.750)");
});

test("weighted: scorer values are clamped to [0, 1] before weighting", () => {
  const p = policy("weighted", 3, [{ name: "kv-utilization", weight: 2 }]);
  // 1 − util: util 1.5 → −0.5 → 0; util −3 → 4 → 1; util 0.5 → 0.5
  const g = route(p, state([{ kvUtilization: 1.5 }, { kvUtilization: -3 }, { kvUtilization: 0.5 }]));
  assert.deepEqual(g.scores, [0, 1, 0.5]);
  assert.equal(g.target, 1);
  // NaN maps to 0 as well.
  const g2 = route(p, state([{ kvUtilization: NaN }, { kvUtilization: 0.9 }, { kvUtilization: 0.95 }]));
  assert.equal(g2.scores![0], 0);
  assert.equal(g2.target, 1);
});

test("weighted: first maximum wins (ties → lowest index), also when every score is 0", () => {
  const p = policy("weighted", 4, [{ name: "queue-depth", weight: 1 }]);
  assert.equal(route(p, loads(1, 0, 0, 1)).target, 1);
  assert.equal(route(p, loads(0, 0, 0, 0)).target, 0);
  const z = policy("weighted", 3, [{ name: "kv-utilization", weight: 1 }]);
  const g = route(z, state([{ kvUtilization: 1 }, { kvUtilization: 1 }, { kvUtilization: 1 }]));
  assert.deepEqual(g.scores, [0, 0, 0]);
  assert.equal(g.target, 0, "best starts at −1, so an all-zero composite still picks index 0");
  assert.equal(g.reason, "weighted-scoring (score=0.000)");
});

test("weighted: only weight ratios matter (3,2,2 ≡ 30,20,20) on a decision sequence", () => {
  const mk = (a: number, b: number, c: number) =>
    new WeightedRouting(
      routingCtx(3, {
        scorers: [
          { name: "prefix-affinity", weight: a },
          { name: "queue-depth", weight: b },
          { name: "kv-utilization", weight: c },
        ],
      }),
    );
  const p1 = mk(3, 2, 2);
  const p2 = mk(30, 20, 20);
  const p3 = mk(1, 0.01, 10);
  const prompts = [tokens(48), tokens(48), tokens(32, 500), tokens(48), tokens(64, 500), tokens(16, 900), tokens(48)];
  const states = [
    [0, 0, 0],
    [1, 0, 0],
    [1, 1, 0],
    [2, 1, 1],
    [2, 1, 5],
    [0, 3, 3],
    [4, 0, 0],
  ];
  const diffs: boolean[] = [];
  prompts.forEach((pr, k) => {
    const s = state(states[k]!.map((l, i) => ({ inFlight: l, kvUtilization: 0.1 * i })));
    const d1 = p1.route(mkReq("x", pr), s);
    const t1 = d1.target;
    const sc1 = Array.from(d1.scores!);
    const d2 = p2.route(mkReq("x", pr), s);
    assert.equal(d2.target, t1, `decision ${k}`);
    assert.deepEqual(Array.from(d2.scores!), sc1, `scores ${k}`);
    diffs.push(p3.route(mkReq("x", pr), s).target !== t1);
  });
  assert.ok(
    diffs.some((x) => x),
    "a different ratio changes at least one decision (the test is sensitive)",
  );
});

test("weighted end to end: 3,2,2 and 30,20,20 route every request identically", () => {
  const shared = tokens(64, 40000);
  const mkReqs = () =>
    Array.from({ length: 30 }, (_, i) =>
      req(`request_${i}`, i * 20000, i % 3 === 0 ? [...shared, ...tokens(20, 60000 + i * 100)] : 60 + (i % 7) * 10, 20),
    );
  const reqs = mkReqs();
  const routed = (w: [number, number, number]) => {
    const r = run(
      simConfig({
        cluster: {
          numInstances: 3,
          routing: {
            policy: "weighted",
            scorers: [
              { name: "prefix-affinity", weight: w[0] },
              { name: "queue-depth", weight: w[1] },
              { name: "kv-utilization", weight: w[2] },
            ],
          },
        },
      }),
      reqs,
    );
    return requestRecords(r.ledger).map((x) => `${x.requestID}@${x.handled_by}`);
  };
  const a = routed([3, 2, 2]);
  assert.equal(a.length, 30);
  assert.deepEqual(routed([30, 20, 20]), a);
  assert.deepEqual(routed([0.3, 0.2, 0.2]), a);
});

test("weighted: the reason's score uses Go %.3f rounding (exact ties to even)", () => {
  const p = policy("weighted", 1, [{ name: "kv-utilization", weight: 1 }]);
  // 1 − 0.9375 = 0.0625 exactly: Go prints 0.062 where toFixed(3) gives 0.063.
  assert.equal(route(p, state([{ kvUtilization: 0.9375 }])).reason, "weighted-scoring (score=0.062)");
  assert.equal(route(p, state([{ kvUtilization: 0.8125 }])).reason, "weighted-scoring (score=0.188)");
});

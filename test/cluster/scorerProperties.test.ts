// Properties of the routing scorers and of --routing-tie-break over random router states
// (docs/behavior.md "Routing and scorers").
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { scorers, type Scorer } from "../../src/cluster/scorers/scorer.js";
import { routingPolicies } from "../../src/cluster/routing/routing.js";
import type { RouterState } from "../../src/cluster/snapshot.js";
import { mkReq, routingCtx, snap, tokens, withCache } from "./helpers.js";

const candidateArb = fc.record({
  queueDepth: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 300 })),
  batchSize: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 300 })),
  inFlight: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 300 })),
  kvUtilization: fc.double({ min: 0, max: 1, noNaN: true }),
  cached: fc.integer({ min: 0, max: 6 }),
});

/** One decision: candidates (instances 0..n−1) and a prompt of `blocks` complete blocks (plus a tail). */
const decisionArb = fc.record({
  candidates: fc.array(candidateArb, { minLength: 1, maxLength: 6 }),
  blocks: fc.integer({ min: 0, max: 6 }),
  tail: fc.integer({ min: 0, max: 15 }),
  prompt: fc.integer({ min: 0, max: 3 }),
});

type Decision = typeof decisionArb extends fc.Arbitrary<infer T> ? T : never;

let reqSeq = 0;
function build(d: Decision, n = d.candidates.length) {
  const r = mkReq(`request_${reqSeq++}`, tokens(d.blocks * 16 + d.tail, 1000 * d.prompt));
  const snapshots = d.candidates.map((c, i) => snap(i, c));
  const s = withCache({ snapshots, clock: 0 }, r, [
    ...d.candidates.map((c) => Math.min(c.cached, d.blocks)),
    ...Array<number>(n - d.candidates.length).fill(0),
  ]);
  return { r, s };
}

const scored = (sc: Scorer, d: Decision, n: number): number[] => {
  const { r, s } = build(d, n);
  const out = new Float64Array(n);
  sc.score(r, s, out);
  return Array.from(out.subarray(0, s.snapshots.length));
};

const TODAY = ["precise-prefix-cache", "no-hit-lru", "active-requests", "running-requests", "load-aware", "vllm-dp"];

test("every scorer's scores lie in [0, 1] (load-aware in [0, 0.5]) over decision sequences", () => {
  for (const name of scorers.listed()) {
    fc.assert(
      fc.property(fc.array(decisionArb, { minLength: 1, maxLength: 12 }), fc.array(fc.nat()), (ds, picks) => {
        const sc = scorers.create(name, {}, routingCtx(6));
        ds.forEach((d, k) => {
          const got = scored(sc, d, 6);
          const hi = name === "load-aware" ? 0.5 : 1;
          for (const v of got) assert.ok(v >= 0 && v <= hi, `${name}: ${v} of ${JSON.stringify(got)}`);
          // The observer learns a pick, so stateful scorers are exercised over a history.
          sc.observe(mkReq(`request_${reqSeq - 1}`, tokens(1)), (picks[k] ?? 0) % d.candidates.length);
        });
      }),
      { seed: FC_SEED, numRuns: 60 },
    );
  }
  assert.ok(TODAY.every((n) => scorers.has(n)));
});

test("scorers of per-candidate formulas do not depend on the order of the candidates", () => {
  const symmetric = [...TODAY.filter((n) => n !== "no-hit-lru"), "queue-depth", "kv-utilization", "load-balance"];
  fc.assert(
    fc.property(decisionArb, fc.func(fc.integer()), (d, key) => {
      const { r, s } = build(d);
      const n = s.snapshots.length;
      const perm = [...s.snapshots].sort((a, b) => key(a.index) - key(b.index) || a.index - b.index);
      const shuffled: RouterState = { snapshots: perm, clock: 0, cache: s.cache ?? null };
      for (const name of symmetric) {
        const a = new Float64Array(n);
        const b = new Float64Array(n);
        scorers.create(name, {}, routingCtx(n)).score(r, s, a);
        scorers.create(name, {}, routingCtx(n)).score(r, shuffled, b);
        perm.forEach((snapshot, k) => assert.equal(b[k], a[snapshot.index], `${name}, instance ${snapshot.index}`));
      }
    }),
    { seed: FC_SEED, numRuns: 200 },
  );
});

test("--routing-tie-break random routes exactly as first until the first tie", () => {
  const names = scorers.listed();
  const setupArb = fc.record({
    policy: fc.constantFrom("weighted", "least-loaded"),
    scorers: fc
      .shuffledSubarray(names, { minLength: 1, maxLength: 4 })
      .chain((ns) => fc.tuple(...ns.map((name) => fc.integer({ min: 1, max: 9 }).map((weight) => ({ name, weight }))))),
    seed: fc.integer(),
  });
  let compared = 0;
  fc.assert(
    fc.property(setupArb, fc.array(decisionArb, { minLength: 1, maxLength: 15 }), (setup, ds) => {
      const n = 6;
      const ctx = () => routingCtx(n, { scorers: setup.scorers });
      const first = routingPolicies.create(setup.policy, { seed: setup.seed }, ctx());
      const random = routingPolicies.create(setup.policy, { seed: setup.seed, routingTieBreak: "random" }, ctx());
      for (const d of ds) {
        const a = build(d, n);
        const da = first.route(a.r, a.s);
        const ta = da.target;
        const values =
          da.scores !== null
            ? Array.from(da.scores.subarray(0, a.s.snapshots.length))
            : a.s.snapshots.map((x) => -x.effectiveLoad);
        const best = Math.max(...values);
        if (values.filter((v) => v === best).length > 1) break;
        const b = build(d, n);
        assert.equal(random.route(b.r, b.s).target, ta);
        compared++;
      }
    }),
    { seed: FC_SEED, numRuns: 300 },
  );
  assert.ok(compared > 300, `only ${compared} tie-free decisions compared`);
});

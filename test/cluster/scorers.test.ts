// Scorer formulas on hand-built router states (docs/behavior.md "Routing and scorers").
import { test } from "node:test";
import assert from "node:assert/strict";
import { scorers, type Scorer } from "../../src/cluster/scorers/scorer.js";
import { RouterPrefixIndex, PREFIX_INDEX_CAPACITY } from "../../src/cluster/scorers/prefixIndex.js";
import { parseSloCacheWeights } from "../../src/config/flagLists.js";
import { loads, mkReq, routingCtx, state, tokens } from "./helpers.js";
import type { RouterState } from "../../src/cluster/snapshot.js";
import type { Request } from "../../src/core/request.js";

function scorer(name: string, n: number, over = {}): Scorer {
  return scorers.create(name, {}, routingCtx(n, over));
}

function scores(sc: Scorer, r: Request, s: RouterState): number[] {
  const out = new Float64Array(s.snapshots.length);
  sc.score(r, s, out);
  return Array.from(out);
}

test("registered scorer names: BLIS's (seed and today's) and this simulator's extensions, sorted, once each", () => {
  const names = scorers.names();
  const blis = ["prefix-affinity", "queue-depth", "kv-utilization", "load-balance"]; // seed BLIS
  blis.push(
    "precise-prefix-cache",
    "no-hit-lru",
    "active-requests",
    "running-requests",
    "load-aware",
    "vllm-dp",
    "lora-affinity",
  ); // today's
  for (const name of [...blis, "kv-pressure", "kv-pressure-slo", "slo-priority"])
    assert.ok(names.includes(name), `${name} not registered`);
  assert.deepEqual(names, [...new Set(names)].sort());
});

test("prefix-affinity: matched/K, K = floor(L/B); partial trailing block ignored", () => {
  const sc = scorer("prefix-affinity", 3);
  const s = loads(0, 0, 0);
  const a = mkReq("a", tokens(48)); // K = 3
  assert.deepEqual(scores(sc, a, s), [0, 0, 0], "no history matches 0");
  sc.observe(a, 1);
  assert.deepEqual(scores(sc, mkReq("a2", tokens(48)), s), [0, 1, 0]);
  // Same first 32 tokens, different third block: 2 of 3 blocks.
  const b = mkReq("b", [...tokens(32), ...tokens(16, 5000)]);
  assert.deepEqual(scores(sc, b, s), [0, 2 / 3, 0]);
  // A longer prompt with the same first 48 tokens: 3 of K = 5.
  const c = mkReq("c", [...tokens(48), ...tokens(40, 7000)]); // 88 tokens → K = 5
  assert.deepEqual(scores(sc, c, s), [0, 3 / 5, 0]);
  // 47 tokens: K = 2 (the trailing 15 tokens form no block); both blocks match.
  assert.deepEqual(scores(sc, mkReq("d", tokens(47)), s), [0, 1, 0]);
  // First block differs: the chain stops at the first miss even though later tokens agree.
  const e = mkReq("e", [...tokens(16, 3000), ...tokens(32).slice(16)]);
  assert.deepEqual(scores(sc, e, s), [0, 0, 0]);
});

test("prefix-affinity: K = 0 (prompt shorter than one block) scores 0 everywhere", () => {
  const sc = scorer("prefix-affinity", 2);
  const short = mkReq("s", tokens(15));
  sc.observe(short, 0);
  assert.deepEqual(scores(sc, mkReq("s2", tokens(15)), loads(0, 0)), [0, 0]);
  // Block size comes from the routing context.
  const sc8 = scorer("prefix-affinity", 2, { blockSize: 8 });
  const p = mkReq("p", tokens(15), { blockSize: 8 });
  sc8.observe(p, 1);
  assert.deepEqual(scores(sc8, mkReq("p2", tokens(15), { blockSize: 8 }), loads(0, 0)), [0, 1]);
});

test("prefix index: recorded in the chosen instance only, updated after scoring", () => {
  const idx = new RouterPrefixIndex(2, 16);
  const r = mkReq("r", tokens(32));
  const out = new Float64Array(2);
  idx.score(r, out);
  assert.deepEqual(Array.from(out), [0, 0]);
  idx.record(r, 0);
  idx.score(mkReq("r2", tokens(32)), out);
  assert.deepEqual(Array.from(out), [1, 0]);
  assert.equal(PREFIX_INDEX_CAPACITY, 10000);
});

test("prefix index LRU: capacity eviction removes the smallest-counter hash (root of the chain first)", () => {
  const idx = new RouterPrefixIndex(1, 16, 3);
  const out = new Float64Array(1);
  const match = (prompt: number[]): number => {
    out.fill(0);
    idx.score(mkReq("q", prompt), out);
    return out[0]!;
  };
  const A = tokens(48); // hashes a0 a1 a2 touched with counters 1, 2, 3
  idx.record(mkReq("A", A), 0);
  assert.equal(match(A), 1);
  // One new hash x: the set is full, so the smallest counter (a0, the root) goes.
  idx.record(mkReq("X", tokens(16, 8000)), 0);
  assert.equal(match(A), 0, "evicting the root kills the whole chain (docs/behavior.md#c5)");
  assert.equal(match(tokens(16, 8000)), 1);

  // Re-touching refreshes the counter: a re-recorded root survives the next eviction.
  const idx2 = new RouterPrefixIndex(1, 16, 3);
  const m2 = (prompt: number[]): number => {
    out.fill(0);
    idx2.score(mkReq("q", prompt), out);
    return out[0]!;
  };
  idx2.record(mkReq("A", A), 0); // a0:1 a1:2 a2:3
  idx2.record(mkReq("A0", tokens(16)), 0); // a0:4
  idx2.record(mkReq("Y", tokens(16, 9000)), 0); // evicts a1 (counter 2)
  assert.equal(m2(A), 1 / 3, "a0 present, a1 evicted → 1 of 3");
  assert.equal(m2(tokens(16, 9000)), 1);
  idx2.record(mkReq("Z", tokens(16, 9500)), 0); // evicts a2 (counter 3)
  assert.equal(m2(A), 1 / 3);
  idx2.record(mkReq("W", tokens(16, 9700)), 0); // evicts a0 (counter 4)
  assert.equal(m2(A), 0);
});

test("prefix index: a prompt longer than the capacity keeps only its last blocks", () => {
  const idx = new RouterPrefixIndex(1, 16, 2);
  const out = new Float64Array(1);
  const A = tokens(64); // 4 blocks, capacity 2: a0 and a1 are evicted while recording
  idx.record(mkReq("A", A), 0);
  idx.score(mkReq("A2", A), out);
  assert.equal(out[0], 0);
});

test("queue-depth: (hi − load)/(hi − lo) over EffectiveLoad; all equal → 1.0", () => {
  const sc = scorer("queue-depth", 3);
  const r = mkReq("r", tokens(16));
  assert.deepEqual(scores(sc, r, loads(0, 0, 0)), [1, 1, 1]);
  assert.deepEqual(scores(sc, r, loads(7, 7, 7)), [1, 1, 1]);
  // EffectiveLoad = queue + batch + in-flight.
  const s = state([
    { queueDepth: 2, batchSize: 1, inFlight: 1 }, // 4
    { queueDepth: 0, batchSize: 0, inFlight: 0 }, // 0
    { queueDepth: 1, batchSize: 0, inFlight: 0 }, // 1
  ]);
  assert.deepEqual(scores(sc, r, s), [0, 1, 3 / 4]);
});

test("kv-utilization: 1 − KVUtilization; load-balance: 1/(1 + load)", () => {
  const r = mkReq("r", tokens(16));
  const s = state([{ kvUtilization: 0.25, inFlight: 3 }, { kvUtilization: 1 }, { kvUtilization: 0, queueDepth: 1 }]);
  assert.deepEqual(scores(scorer("kv-utilization", 3), r, s), [0.75, 0, 1]);
  assert.deepEqual(scores(scorer("load-balance", 3), r, s), [1 / 4, 1, 1 / 2]);
});

test("kv-pressure: 1 − util − pending/10000 − 2·thrashing, clamped to [0, 1]", () => {
  const sc = scorer("kv-pressure", 4);
  const r = mkReq("r", tokens(16), { extra: { sloClass: "critical" } });
  const s = state([
    { kvUtilization: 0.2 },
    { kvUtilization: 0.2, pendingTransferLatency: 1000 },
    { kvUtilization: 0.2, pendingTransferLatency: 1000, kvThrashingRate: 0.1 },
    { kvUtilization: 0.5, pendingTransferLatency: 4000, kvThrashingRate: 0.25 },
  ]);
  const got = scores(sc, r, s);
  assert.equal(got[0], 0.8);
  assert.ok(Math.abs(got[1]! - 0.7) < 1e-12);
  assert.ok(Math.abs(got[2]! - 0.5) < 1e-12);
  assert.equal(got[3], 0, "0.5 − 0.4 − 0.5 < 0 clamps to 0");
  // Without the extra signals it equals kv-utilization; the SLO class is ignored.
  const plain = state([{ kvUtilization: 0.3 }, { kvUtilization: 0.9 }]);
  assert.deepEqual(scores(scorer("kv-pressure", 2), r, plain), scores(scorer("kv-utilization", 2), r, plain));
});

test("kv-pressure-slo: transfer penalty scaled by class factor; thrashing unscaled", () => {
  const sc = scorer("kv-pressure-slo", 1);
  const s = state([{ kvUtilization: 0.2, pendingTransferLatency: 1000, kvThrashingRate: 0.1 }]);
  const of = (cls: string): number => scores(sc, mkReq("r", tokens(16), { extra: { sloClass: cls } }), s)[0]!;
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
  close(of("critical"), 0.8 - 0.1 * 5 - 0.2); // 0.1
  close(of("batch"), 0.8 - 0.1 * 0.2 - 0.2); // 0.58
  close(of("background"), 0.8 - 0.1 * 0.1 - 0.2); // 0.59
  close(of("standard"), 0.8 - 0.1 - 0.2);
  close(of("sheddable"), 0.8 - 0.1 - 0.2);
  close(of(""), 0.8 - 0.1 - 0.2);
  // Critical with a large pending latency clamps at 0.
  const big = state([{ kvUtilization: 0, pendingTransferLatency: 3000 }]);
  assert.equal(scores(sc, mkReq("r", tokens(16), { extra: { sloClass: "critical" } }), big)[0], 0);
  assert.ok(
    Math.abs(scores(sc, mkReq("r", tokens(16), { extra: { sloClass: "background" } }), big)[0]! - 0.97) < 1e-12,
  );
});

test("slo-priority: α_tier·prefix + (1 − α_tier)·queue-depth with α from --slo-cache-weights", () => {
  const check = (weights: [number, number, number], expectAlpha: Record<string, number>) => {
    const sc = scorer("slo-priority", 2, { sloCacheWeights: weights });
    const seed = mkReq("seed", tokens(32));
    sc.observe(seed, 0); // instance_0 holds the prefix
    // loads: instance_0 busy (3), instance_1 idle (1) → queue-depth [0, 1]; prefix [1, 0]
    const s = loads(3, 1);
    for (const [cls, a] of Object.entries(expectAlpha)) {
      const got = scores(sc, mkReq("r", tokens(32), { extra: { sloClass: cls } }), s);
      assert.deepEqual(got, [a * 1 + (1 - a) * 0, a * 0 + (1 - a) * 1], `class ${cls || "(empty)"}`);
    }
  };
  // Defaults: critical 0.25, standard 0.5, sheddable 0.75 → tier order [sheddable, standard, critical].
  const def = parseSloCacheWeights("critical:0.25,standard:0.5,sheddable:0.75");
  assert.deepEqual(def, [0.75, 0.5, 0.25]);
  check(def, { critical: 0.25, standard: 0.5, "": 0.5, sheddable: 0.75, batch: 0.75, background: 0.75 });
  // Unlisted tiers keep their defaults.
  const custom = parseSloCacheWeights("critical:1,sheddable:0");
  assert.deepEqual(custom, [0, 0.5, 1]);
  check(custom, { critical: 1, standard: 0.5, sheddable: 0, batch: 0 });
});

test("slo-priority: its own prefix index (not shared with prefix-affinity), K = 0 → load only", () => {
  const sp = scorer("slo-priority", 2);
  const pa = scorer("prefix-affinity", 2);
  pa.observe(mkReq("x", tokens(32)), 1);
  const got = scores(sp, mkReq("r", tokens(32)), loads(0, 2));
  assert.deepEqual(got, [0.5 * 0 + 0.5 * 1, 0.5 * 0 + 0.5 * 0]);
  const short = scores(sp, mkReq("s", tokens(10), { extra: { sloClass: "sheddable" } }), loads(2, 0));
  assert.deepEqual(short, [0, 0.25]);
});

test("--slo-cache-weights grammar errors", () => {
  assert.throws(() => parseSloCacheWeights("critical"), /Invalid --slo-cache-weights: invalid entry "critical"/);
  assert.throws(() => parseSloCacheWeights("gold:0.5"), /unknown tier "gold"/);
  assert.throws(() => parseSloCacheWeights("critical:0.5,critical:0.2"), /duplicate tier "critical"/);
  assert.throws(() => parseSloCacheWeights("critical:1.5"), /must be a finite number in \[0, 1\]/);
  assert.throws(() => parseSloCacheWeights("critical:-0.1"), /must be a finite number in \[0, 1\]/);
  assert.throws(() => parseSloCacheWeights("critical:nan"), /must be a finite number in \[0, 1\]/);
});

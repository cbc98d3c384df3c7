// Today's BLIS scorers on hand-built router states (docs/behavior.md "Routing and scorers"),
// ties included, and the worked example of the scorer table.
import { test } from "node:test";
import assert from "node:assert/strict";
import { scorers, type Scorer } from "../../src/cluster/scorers/scorer.js";
import { routingPolicies } from "../../src/cluster/routing/routing.js";
import { LOAD_AWARE_THRESHOLD } from "../../src/cluster/scorers/loadAware.js";
import { DEFAULT_SCORERS } from "../../src/config/runOptions.js";
import type { RouterState } from "../../src/cluster/snapshot.js";
import type { Request } from "../../src/core/request.js";
import { HashIndex } from "../../src/kv/hashIndex.js";
import { CacheSignalProvider, promptHashes } from "../../src/cluster/scorers/cacheSignals.js";
import { loads, mkReq, routingCtx, snap, state, tokens, withCache } from "./helpers.js";

function scorer(name: string, n: number, params: Record<string, unknown> = {}): Scorer {
  return scorers.create(name, params, routingCtx(n));
}

function scores(sc: Scorer, r: Request, s: RouterState): number[] {
  const out = new Float64Array(s.snapshots.length);
  sc.score(r, s, out);
  return Array.from(out);
}

function close(got: readonly number[], want: readonly number[], label = ""): void {
  assert.equal(got.length, want.length, label);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]!) < 1e-9, `${label} [${i}]: ${g} vs ${want[i]}`));
}

const idle3 = () => loads(0, 0, 0);

test("precise-prefix-cache: min-max↑ over cached blocks; all equal → 1.0 for all", () => {
  const sc = scorer("precise-prefix-cache", 3);
  const r = mkReq("r", tokens(64)); // K = 4
  assert.deepEqual(scores(sc, r, withCache(idle3(), r, [4, 1, 0])), [1, 0.25, 0]);
  assert.deepEqual(scores(sc, r, withCache(idle3(), r, [0, 2, 4])), [0, 0.5, 1]);
  // Ties at the top and at the bottom.
  assert.deepEqual(scores(sc, r, withCache(idle3(), r, [3, 3, 1])), [1, 1, 0]);
  assert.deepEqual(scores(sc, r, withCache(idle3(), r, [2, 0, 0])), [1, 0, 0]);
  // All equal, cached or not.
  assert.deepEqual(scores(sc, r, withCache(idle3(), r, [0, 0, 0])), [1, 1, 1]);
  assert.deepEqual(scores(sc, r, withCache(idle3(), r, [2, 2, 2])), [1, 1, 1]);
  // K = 0: a prompt shorter than a block has nothing to look up.
  const short = mkReq("s", tokens(15));
  assert.deepEqual(scores(sc, short, withCache(idle3(), short, [0, 0, 0])), [1, 1, 1]);
  // Load does not matter.
  assert.deepEqual(scores(sc, r, withCache(loads(9, 0, 4), r, [1, 1, 4])), [0, 0, 1]);
});

test("precise-prefix-cache: counts leading blocks only, stopping at the first miss", () => {
  const sc = scorer("precise-prefix-cache", 3);
  const r = mkReq("r", tokens(64));
  // A shorter prompt with the same first 48 tokens: c = 3, 1, 0 of K = 3.
  assert.deepEqual(scores(sc, mkReq("r2", tokens(48)), withCache(idle3(), r, [3, 1, 0])), [1, 1 / 3, 0]);
  // A different first block matches nothing, even though later tokens agree (chained hashes).
  const other = mkReq("o", [...tokens(16, 5000), ...tokens(64).slice(16)]);
  assert.deepEqual(scores(sc, other, withCache(idle3(), r, [4, 4, 0])), [1, 1, 1]);
  // Instance 1 holds blocks 0, 2 and 3 but not block 1: only one leading block counts.
  const h = promptHashes(r, 16);
  const gap = new HashIndex(16);
  for (const k of [0, 2, 3]) gap.set(h[k]!, k);
  const full = new HashIndex(16);
  for (const k of [0, 1, 2, 3]) full.set(h[k]!, k);
  const cache = new CacheSignalProvider(
    [{ prefixIndex: full }, { prefixIndex: gap }, { prefixIndex: new HashIndex(16) }],
    0,
  );
  assert.deepEqual(scores(sc, r, { snapshots: idle3().snapshots, clock: 0, cache }), [1, 0.25, 0]);
});

test("precise-prefix-cache: a state without cache signals scores 1.0 everywhere", () => {
  assert.deepEqual(scores(scorer("precise-prefix-cache", 3), mkReq("r", tokens(64)), idle3()), [1, 1, 1]);
});

test("candidates are a subset: scores follow snapshot positions, signals follow instance indices", () => {
  const r = mkReq("r", tokens(64));
  const full = withCache(idle3(), r, [4, 1, 0]);
  // Instances 0 and 2 only.
  const sub: RouterState = { snapshots: [snap(0), snap(2, { batchSize: 3 })], clock: 0, cache: full.cache ?? null };
  assert.deepEqual(scores(scorer("precise-prefix-cache", 3), r, sub), [1, 0]);
  assert.deepEqual(scores(scorer("running-requests", 3), r, sub), [1, 0]);
  const pa = scorer("prefix-affinity", 3);
  pa.observe(r, 2);
  assert.deepEqual(scores(pa, mkReq("r2", tokens(64)), sub), [0, 1], "instance 2 is position 1");
});

test("no-hit-lru: warm → 0.5 everywhere; cold → LRU ranks; the observer moves the chosen to the front", () => {
  const sc = scorer("no-hit-lru", 3);
  const cold = (id: string, s: RouterState = idle3()): number[] => {
    const r = mkReq(id, tokens(64, 1000 * id.length));
    return scores(sc, r, withCache(s, r, [0, 0, 0]));
  };
  // Empty list: every candidate unlisted, ranked in index order.
  assert.deepEqual(cold("a"), [1, 0.5, 0]);
  sc.observe(mkReq("a", tokens(1)), 0);
  // List [0]: unlisted 1, 2 first, then 0.
  assert.deepEqual(cold("bb"), [0, 1, 0.5]);
  sc.observe(mkReq("bb", tokens(1)), 1);
  // List [1, 0] (most recent first): unlisted 2, then 0 (least recent), then 1.
  assert.deepEqual(cold("ccc"), [0.5, 0, 1]);
  sc.observe(mkReq("ccc", tokens(1)), 2);
  // List [2, 1, 0]: from the least recent.
  assert.deepEqual(cold("dddd"), [1, 0.5, 0]);
  // The observer only acts for the request just scored.
  sc.observe(mkReq("other", tokens(1)), 2);
  assert.deepEqual(cold("eeeee"), [1, 0.5, 0]);
  sc.observe(mkReq("eeeee", tokens(1)), 0); // list [0, 2, 1]
  assert.deepEqual(cold("f"), [0, 1, 0.5]);

  // Warm: any candidate with a cached block; the list does not change.
  const w = mkReq("w", tokens(64));
  assert.deepEqual(scores(sc, w, withCache(idle3(), w, [0, 0, 1])), [0.5, 0.5, 0.5]);
  sc.observe(w, 1);
  assert.deepEqual(cold("g"), [0, 1, 0.5], "a warm request never moves an instance");
});

test("no-hit-lru: one candidate scores 1.0; listed instances that are no longer candidates are dropped", () => {
  const sc = scorer("no-hit-lru", 3);
  const r = mkReq("r", tokens(64));
  assert.deepEqual(scores(sc, r, withCache(loads(5), r, [0])), [1]);
  const seen = (id: string, chosen: number) => {
    const q = mkReq(id, tokens(64, 50));
    scores(sc, q, withCache(idle3(), q, [0, 0, 0]));
    sc.observe(q, chosen);
  };
  seen("x", 2);
  seen("y", 0); // list [0, 2]
  // Candidates 0 and 1: instance 2 leaves the list; unlisted 1 first, then 0.
  const q = mkReq("z", tokens(64, 70));
  const two = withCache(idle3(), q, [0, 0, 0]);
  const sub: RouterState = { snapshots: [snap(0), snap(1)], clock: 0, cache: two.cache ?? null };
  assert.deepEqual(scores(sc, q, sub), [0, 1]);
  // Back to three candidates: 2 is unlisted again and ranks with 1 in index order before 0.
  assert.deepEqual(scores(sc, mkReq("z2", tokens(64, 90)), withCache(idle3(), q, [0, 0, 0])), [0, 1, 0.5]);
});

test("no-hit-lru: a K = 0 prompt is cold; no cache signals → cold", () => {
  const sc = scorer("no-hit-lru", 2);
  const short = mkReq("s", tokens(10));
  assert.deepEqual(scores(sc, short, withCache(loads(0, 0), short, [0, 0])), [1, 0]);
  assert.deepEqual(scores(sc, mkReq("t", tokens(64)), loads(0, 0)), [1, 0]);
});

test("active-requests: (m − F)/m over live in-flight counts; equal non-zero counts all score 0", () => {
  const sc = scorer("active-requests", 3);
  const r = mkReq("r", tokens(16));
  assert.deepEqual(scores(sc, r, loads(3, 0, 5)), [0.4, 1, 0]);
  assert.deepEqual(scores(sc, r, loads(2, 2, 2)), [0, 0, 0], "deliberately asymmetric");
  assert.deepEqual(scores(sc, r, loads(0, 0, 0)), [1, 1, 1]);
  assert.deepEqual(scores(sc, r, loads(4, 4, 0)), [0, 0, 1]);
  // Only F counts, not the queue or the batch.
  assert.deepEqual(
    scores(
      sc,
      r,
      state([
        { queueDepth: 9, inFlight: 1 },
        { batchSize: 9, inFlight: 2 },
      ]),
    ),
    [0.5, 0],
  );
});

test("running-requests: min-max↓ over BatchSize; all equal → 1.0", () => {
  const sc = scorer("running-requests", 3);
  const r = mkReq("r", tokens(16));
  assert.deepEqual(scores(sc, r, state([{ batchSize: 10 }, { batchSize: 8 }, { batchSize: 12 }])), [0.5, 1, 0]);
  assert.deepEqual(
    scores(sc, r, state([{ batchSize: 4, queueDepth: 7 }, { batchSize: 4 }, { batchSize: 4, inFlight: 3 }])),
    [1, 1, 1],
  );
  assert.deepEqual(scores(sc, r, state([{ batchSize: 1 }, { batchSize: 1 }, { batchSize: 3 }])), [1, 1, 0]);
});

test("load-aware: 0.5 for an empty queue, 0.5·(1 − min(Q, 128)/128) otherwise", () => {
  const sc = scorer("load-aware", 5);
  const r = mkReq("r", tokens(16));
  const s = state([
    { queueDepth: 0, batchSize: 50 },
    { queueDepth: 64 },
    { queueDepth: 128 },
    { queueDepth: 500 },
    { queueDepth: 1 },
  ]);
  assert.deepEqual(scores(sc, r, s), [0.5, 0.25, 0, 0, 0.5 * (127 / 128)]);
  assert.equal(LOAD_AWARE_THRESHOLD, 128);
  // Not normalized: equal queues score equal, but not 1.0.
  assert.deepEqual(scores(sc, r, state([{ queueDepth: 32 }, { queueDepth: 32 }])), [0.375, 0.375]);
});

test("vllm-dp: min-max↓ over 4·Q + B; equal raw values → 1.0", () => {
  const sc = scorer("vllm-dp", 3);
  const r = mkReq("r", tokens(16));
  // raw 4, 4, 8: a waiting request weighs as much as four running ones.
  assert.deepEqual(
    scores(sc, r, state([{ queueDepth: 1 }, { batchSize: 4 }, { queueDepth: 1, batchSize: 4 }])),
    [1, 1, 0],
  );
  assert.deepEqual(scores(sc, r, state([{ inFlight: 9 }, {}, {}])), [1, 1, 1], "in-flight does not count");
});

test("queue-depth: --queue-depth-signal queue reads QueueDepth only; the default stays EffectiveLoad", () => {
  const r = mkReq("r", tokens(16));
  const s = state([
    { queueDepth: 6, batchSize: 10, inFlight: 3 },
    { queueDepth: 2, batchSize: 8, inFlight: 0 },
    { queueDepth: 0, batchSize: 12, inFlight: 5 },
  ]);
  close(scores(scorer("queue-depth", 3, { queueDepthSignal: "queue" }), r, s), [0, 2 / 3, 1]);
  close(scores(scorer("queue-depth", 3), r, s), [0, 1, 2 / 9], "EffectiveLoad 19, 10, 17");
  assert.deepEqual(scores(scorer("queue-depth", 3, { queueDepthSignal: "queue" }), r, loads(1, 2, 3)), [1, 1, 1]);
});

// The worked example: three candidates, block size 16, a 64-token prompt (K = 4), fresh signals.
const EXAMPLE = [
  { queueDepth: 6, batchSize: 10, inFlight: 3, kvUtilization: 0.5 },
  { queueDepth: 2, batchSize: 8, inFlight: 0, kvUtilization: 0.2 },
  { queueDepth: 0, batchSize: 12, inFlight: 5, kvUtilization: 0.9 },
];
const EXAMPLE_CACHED = [4, 1, 0];

test("worked example: today's default profile picks instance_0 with score 0.625", () => {
  const r = mkReq("r", tokens(64));
  const s = withCache(state(EXAMPLE), r, EXAMPLE_CACHED);
  close(scores(scorer("precise-prefix-cache", 3), r, s), [1, 0.25, 0], "precise-prefix-cache");
  const qd = scores(scorer("queue-depth", 3, { queueDepthSignal: "queue" }), r, s);
  close(qd, [0, 2 / 3, 1], "queue-depth (Q only)");
  assert.ok(Math.abs(qd[1]! - 0.6667) < 5e-5);
  close(scores(scorer("kv-utilization", 3), r, s), [0.5, 0.8, 0.1], "kv-utilization");
  const params = { queueDepthSignal: "queue" };
  const today = [
    { name: "precise-prefix-cache", weight: 2 },
    { name: "queue-depth", weight: 1 },
    { name: "kv-utilization", weight: 1 },
  ];
  const p = routingPolicies.create("weighted", params, routingCtx(3, { scorers: today, params }));
  const d = p.route(r, s);
  close(Array.from(d.scores!), [0.625, 0.125 + 1 / 6 + 0.2, 0.275], "composites");
  assert.ok(Math.abs(d.scores![1]! - 0.49167) < 5e-6);
  assert.equal(d.target, 0);
  assert.equal(d.reason, "weighted-scoring (score=0.625)");
  // The seed default profile stays the default.
  assert.deepEqual(
    DEFAULT_SCORERS.map((x) => `${x.name}:${x.weight}`),
    ["prefix-affinity:3", "queue-depth:2", "kv-utilization:2"],
  );
});

test("worked example: the other scorers on the same state", () => {
  const r = mkReq("r", tokens(64));
  const s = withCache(state(EXAMPLE), r, EXAMPLE_CACHED);
  assert.deepEqual(scores(scorer("load-aware", 3), r, s), [0.4765625, 0.4921875, 0.5]);
  close(scores(scorer("vllm-dp", 3), r, s), [0, 18 / 22, 1], "vllm-dp raw 34, 16, 12");
  assert.ok(Math.abs(scores(scorer("vllm-dp", 3), r, s)[1]! - 0.81818) < 5e-6);
  assert.deepEqual(scores(scorer("active-requests", 3), r, s), [0.4, 1, 0]);
  assert.deepEqual(scores(scorer("running-requests", 3), r, s), [0.5, 1, 0]);
  close(scores(scorer("load-balance", 3), r, s), [1 / 20, 1 / 11, 1 / 18], "load-balance");
  // instance_2 received the prompt earlier and has since evicted it: the router's own index still
  // remembers it, the real cache does not.
  const pa = scorer("prefix-affinity", 3);
  pa.observe(mkReq("earlier", tokens(64)), 2);
  assert.equal(scores(pa, r, s)[2], 1);
  assert.equal(scores(scorer("precise-prefix-cache", 3), r, s)[2], 0);
});

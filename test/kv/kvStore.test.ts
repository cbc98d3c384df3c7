import { test } from "node:test";
import assert from "node:assert/strict";
import { KvStore } from "../../src/kv/kvStore.js";
import { TieredKvStore } from "../../src/kv/tieredKvStore.js";
import { blockHashChain } from "../../src/kv/hash.js";
import { MIN_SYMBOLIC, seqBlockHash, sequenceHashes } from "../../src/kv/seqHash.js";
import { dist, emptyDist, generateAll, makeClient, makeSpec, type WorkloadRequest } from "../../src/workload/index.js";
import { Rng } from "../../src/engine/rng.js";
import { TOKEN_VOCABULARY, TokenSeq } from "../../src/core/tokenSeq.js";
import { Request } from "../../src/core/request.js";
import { makeRequest } from "../../src/core/workloadRequest.js";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";

function mk(id: string, input: number[], output: number[], bs: number): Request {
  return new Request(makeRequest(id, 0, input, output), 0, bs);
}
const range = (a: number, n: number): number[] => Array.from({ length: n }, (_, i) => a + i);

test("block hashes identify whole prefixes: equal iff the sequences up to the block end are equal", () => {
  const a = blockHashChain(Int32Array.from(range(0, 48)), 48, 16);
  const b = blockHashChain(Int32Array.from([...range(0, 32), ...range(100, 16)]), 48, 16);
  const c = blockHashChain(Int32Array.from([...range(0, 16), 999, ...range(17, 31)]), 48, 16);
  assert.equal(a[0], b[0]);
  assert.equal(a[1], b[1]);
  assert.notEqual(a[2], b[2]);
  assert.equal(a[0], c[0]);
  assert.notEqual(a[1], c[1]);
  assert.notEqual(a[2], c[2], "a difference in an earlier block changes every later hash");
});

test("blocks filled by prefill chunks and decode tokens get the chain hashes of their content (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }),
      fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 0, max: 40 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }),
      (bs, prompt, nOut, chunks) => {
        const out = range(7, nOut);
        const kv = new KvStore(64, bs);
        const a = mk("a", prompt, out, bs);
        // Prefill in the given chunk sizes, then decode one token at a time.
        let c = 0;
        while (a.pi < prompt.length) {
          const n = Math.min(chunks[c++ % chunks.length]!, prompt.length - a.pi);
          assert.ok(kv.allocate(a, a.pi, a.pi + n, 0));
          a.pi += n;
        }
        for (let k = 0; k < nOut; k++) {
          assert.ok(kv.allocate(a, a.pi, a.pi + 1, 0));
          a.pi++;
        }
        // A prompt equal to a's whole sequence finds every full block a filled, except that a
        // block taken fresh in decode is not hashed when taken (docs/behavior.md "KV cache"), which with
        // 1-token blocks means no decode block is ever registered.
        const seq = [...prompt, ...out];
        const b = mk("b", seq, [], bs);
        assert.equal(kv.cachedPrefix(b), bs === 1 ? prompt.length : Math.floor(seq.length / bs));
        const want = blockHashChain(Int32Array.from(seq), seq.length, bs);
        assert.deepEqual(kv.promptHashes(b), want);
      },
    ),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("prefix lookup, reference counts and LRU reuse of freed cached blocks", () => {
  const kv = new KvStore(6, 4);
  const x = mk("x", range(1, 8), [50, 51], 4);
  assert.equal(kv.cachedPrefix(x), 0);
  assert.ok(kv.allocate(x, 0, 8, 0));
  assert.equal(kv.used, 2);
  assert.equal(kv.misses, 2);
  // An identical prompt finds both full blocks, shared by reference.
  const y = mk("y", range(1, 8), [60], 4);
  y.pi = 0;
  const n = kv.cachedPrefix(y);
  assert.equal(n, 2);
  assert.ok(kv.allocate(y, 8, 8, n) || true);
  kv.release(x);
  assert.equal(kv.used, 0, "released blocks are free but keep their content");
  assert.equal(kv.cachedPrefix(y), 2, "freed blocks still match as a cached prefix");
  // Freed blocks go to the tail: fresh allocations take untouched blocks first.
  const z = mk("z", range(200, 16), [], 4);
  assert.ok(kv.allocate(z, 0, 16, 0));
  assert.equal(kv.cachedPrefix(y), 2, "4 fresh blocks came from the untouched ones");
  const w = mk("w", range(300, 4), [], 4);
  assert.ok(kv.allocate(w, 0, 4, 0));
  // The LRU victim is x's last block (released first among x's blocks... released last-to-first).
  assert.equal(kv.cachedPrefix(y), 1, "evicting the second cached block cuts the prefix at block 1");
});

test("a failed allocation rolls back only its own work and keeps earlier blocks", () => {
  const kv = new KvStore(3, 4);
  const p = mk("p", range(1, 4), range(10, 10), 4);
  assert.ok(kv.allocate(p, 0, 4, 0));
  p.pi = 4; // decoding
  assert.ok(kv.allocate(p, 4, 5, 0));
  const q = mk("q", range(20, 4), [], 4);
  assert.ok(kv.allocate(q, 0, 4, 0));
  assert.equal(kv.used, 3);
  // p's decode block (holding 1 of 4) still has room; fill it, then the next block fails.
  for (let pos = 5; pos < 8; pos++) assert.ok(kv.allocate(p, pos, pos + 1, 0));
  assert.equal(kv.allocate(p, 8, 9, 0), false);
  assert.equal(p.nBlocks, 2, "p keeps its blocks after the failure (BLIS would leak them)");
  assert.equal(kv.used, 3);
  kv.release(p);
  assert.equal(kv.used, 1, "p's blocks are freed on release");
});

test("tiered store: offload after release, reload on failure, transfer latency by hand", () => {
  // bs 16, bandwidth 10, base latency 100: each reloaded block costs 100 + ceil(16 / 10) = 102 ticks.
  const kv = new TieredKvStore(4, 16, 10, 0.0, 10, 100);
  const a = mk("a", range(1, 32), [], 16);
  const b = mk("b", range(500, 16), [], 16);
  assert.ok(kv.allocate(a, 0, 32, 0));
  assert.ok(kv.allocate(b, 0, 16, 0));
  kv.setClock(5000);
  kv.release(a);
  // used 1/4 > threshold 0: both of a's hashed blocks move to the CPU tier.
  assert.equal(kv.offloadCount, 2);
  assert.equal(kv.cpuUsed, 2);
  assert.equal(kv.indexSize(), 1, "only b's block remains in the GPU prefix index");
  // A request with a's 32 tokens plus 48 more needs 4 blocks > 3 free: the GPU allocation fails
  // and both CPU entries are reloaded into free slots.
  const c = mk("c", [...range(1, 32), ...range(900, 48)], [], 16);
  kv.setClock(5500);
  assert.equal(kv.allocate(c, 0, 80, 0), false);
  assert.equal(kv.reloadCount, 2);
  assert.equal(kv.pendingTransferLatency(), 204);
  assert.equal(kv.thrashCount, 2, "reloaded within 1000 ticks of the offload");
  assert.equal(kv.thrashingRate(), 1);
  assert.equal(kv.cachedPrefix(c), 2, "the reloaded blocks are back in the GPU index");
  assert.equal(kv.consumeTransferLatency(), 204);
  assert.equal(kv.pendingTransferLatency(), 0);
  // hits + cpu hits over everything: (0 + 2) / (0 + 2 + 3 misses + 0 cpu misses)
  assert.equal(kv.cacheHitRate(), 2 / 5);
});

test("a failed allocation after attaching a cached prefix undoes the attach and the fresh blocks", () => {
  const kv = new KvStore(5, 4);
  const x = mk("x", range(1, 8), [], 4);
  const z = mk("z", range(50, 4), [], 4);
  assert.ok(kv.allocate(x, 0, 8, 0));
  assert.ok(kv.allocate(z, 0, 4, 0));
  kv.release(x);
  kv.release(z);
  assert.deepEqual(kv.freeListIds(), [3, 4, 1, 0, 2]);
  // y reuses x's two cached blocks and needs four fresh ones; three free blocks remain after the attach.
  const y = mk("y", [...range(1, 8), ...range(100, 16)], [], 4);
  const n = kv.cachedPrefix(y);
  assert.equal(n, 2);
  assert.equal(kv.allocate(y, 8, 24, n), false);
  assert.equal(y.nBlocks, 0);
  assert.deepEqual([kv.used, kv.hits, kv.misses], [0, 0, 3]);
  assert.equal(kv.cachedPrefix(y), 2, "the attached blocks keep their content");
  assert.equal(
    kv.cachedPrefix(mk("z2", range(50, 4), [], 4)),
    1,
    "a fresh block taken and given back gets its hash back",
  );
  // Fresh blocks go back to the head in their old order, the attached ones to the tail (docs/behavior.md#q14).
  assert.deepEqual(kv.freeListIds(), [3, 4, 2, 1, 0]);
});

test("a prefill chunk fills the room in the last block before taking fresh blocks", () => {
  const kv = new KvStore(8, 4);
  const a = mk("a", range(1, 14), [], 4);
  assert.ok(kv.allocate(a, 0, 6, 0));
  a.pi = 6;
  assert.deepEqual([a.nBlocks, a.tailFill, kv.misses], [2, 2, 2]);
  assert.ok(kv.allocate(a, 6, 14, 0));
  assert.deepEqual([a.nBlocks, a.tailFill, kv.misses], [4, 2, 4]);
  // Every full block got the prompt's chain hash: an identical prompt finds three of them.
  assert.equal(kv.cachedPrefix(mk("b", range(1, 14), [], 4)), 3);
});

test("a store without a CPU tier reports none; the tiered store reports its counters", () => {
  const single = new KvStore(4, 16);
  assert.equal(single.cpuUtilization(), 0);
  assert.equal(single.cpuTierStats(), null);
  const kv = new TieredKvStore(4, 16, 10, 0.0, 10, 100);
  const a = mk("a", range(1, 32), [], 16);
  const b = mk("b", range(500, 16), [], 16);
  assert.ok(kv.allocate(a, 0, 32, 0));
  assert.ok(kv.allocate(b, 0, 16, 0));
  kv.release(a);
  assert.equal(kv.cpuUtilization(), 2 / 10);
  assert.equal(kv.allocate(mk("c", [...range(1, 32), ...range(900, 48)], [], 16), 0, 80, 0), false);
  assert.deepEqual(kv.cpuTierStats(), { offloads: 2, reloads: 2, cpuHits: 2, cpuMisses: 0 });
  assert.equal(kv.cpuUtilization(), 0);
});

function generatedMix(): WorkloadRequest[] {
  const g = dist("gaussian", { mean: 40, std_dev: 25, min: 1, max: 120 });
  const spec = makeSpec({
    aggregate_rate: 50,
    num_requests: 80,
    clients: [
      makeClient({
        id: "acc",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        prefix_group: "sys",
        prefix_length: 31,
        input_distribution: g,
        output_distribution: g,
        reasoning: {
          reason_ratio_distribution: emptyDist(),
          multi_turn: { max_rounds: 3, think_time_us: 1000, context_growth: "accumulate" },
        },
      }),
      makeClient({
        id: "fresh",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        prefix_group: "sys",
        input_distribution: g,
        output_distribution: g,
        reasoning: {
          reason_ratio_distribution: emptyDist(),
          multi_turn: { max_rounds: 2, think_time_us: 0, context_growth: "" },
        },
      }),
      makeClient({
        id: "mm",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: g,
        output_distribution: g,
        multimodal: {
          text_distribution: g,
          image_distribution: dist("constant", { value: 7 }),
          image_count_distribution: dist("constant", { value: 2 }),
          audio_distribution: emptyDist(),
          audio_count_distribution: emptyDist(),
          video_distribution: emptyDist(),
          video_count_distribution: emptyDist(),
        },
      }),
    ],
  });
  const reqs = generateAll(spec, { seed: 5n });
  assert.equal(reqs.length, 80);
  return reqs;
}

test("block hashes of generated requests: equal exactly when the token IDs up to the block's end are equal", () => {
  const reqs = generatedMix();
  for (const bs of [1, 3, 4, 7, 16]) {
    // content chain hash → described chain hash, and back: a bijection over every block of every request
    const fwd = new Map<number, number>();
    const back = new Map<number, number>();
    let shared = 0;
    for (const w of reqs) {
      const tokens = w.tokens;
      assert.equal(tokens.length, w.inputLen + w.outputLen);
      const byContent = blockHashChain(tokens, tokens.length, bs);
      const described = sequenceHashes(w.tokenSeq, bs);
      if (bs < MIN_SYMBOLIC) assert.deepEqual(described, byContent, "short blocks are hashed by content");
      assert.equal(described.length, byContent.length);
      for (let k = 0; k < described.length; k++) {
        const c = byContent[k]!;
        const d = described[k]!;
        if (fwd.has(c)) shared++;
        assert.equal(fwd.get(c) ?? d, d, `bs ${bs}: equal IDs, equal hash`);
        assert.equal(back.get(d) ?? c, c, `bs ${bs}: equal hash, equal IDs`);
        fwd.set(c, d);
        back.set(d, c);
        assert.equal(seqBlockHash(w.tokenSeq, k * bs, bs, k === 0 ? -1 : described[k - 1]!), d, "one block alone");
      }
      const kv = new KvStore(1000, bs);
      assert.deepEqual(kv.promptHashes(new Request(w, 0, bs)), described.subarray(0, Math.floor(w.inputLen / bs)));
    }
    assert.ok(shared > 100, `bs ${bs}: prefixes and accumulated contexts share blocks (${shared})`);
  }
});

test("a few drawn IDs after a shared literal prefix match by content", () => {
  // Two runs of one stream whose first draws coincide: after a 15-token literal prefix, the first
  // block holds one drawn ID, equal in both; the second block differs.
  const rng = new Rng(77n);
  const first = rng.intn(TOKEN_VOCABULARY);
  let m = 1;
  while (rng.intn(TOKEN_VOCABULARY) !== first) m++;
  const prefix = Int32Array.from(range(500, 15));
  const at = (skip: number): TokenSeq => {
    const r = new Rng(77n);
    r.skip(skip);
    return new TokenSeq(15 + 40, prefix, 40, r.word(0), r.word(1), r.word(2), r.word(3), new Int32Array(0), 0, 0);
  };
  const a = at(0);
  const b = at(m);
  assert.equal(a.toArray()[15], b.toArray()[15]);
  assert.notEqual(a.toArray()[16], b.toArray()[16]);
  const ha = sequenceHashes(a, 16);
  const hb = sequenceHashes(b, 16);
  assert.equal(ha[0], hb[0]);
  assert.equal(
    ha[0],
    blockHashChain(a.toArray(), 16, 16)[0],
    "a block of literal and short drawn stretches is hashed by content",
  );
  assert.notEqual(ha[1], hb[1]);
  // Literal copies of those IDs match too, while the stretch is short.
  assert.equal(sequenceHashes(TokenSeq.of(a.toArray()), 16)[0], ha[0]);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ChainMemo } from "../../src/kv/chainMemo.js";
import { seqBlockHash, seqHashesInto } from "../../src/kv/seqHash.js";
import { NO_HASH } from "../../src/kv/hash.js";
import { TokenSeq } from "../../src/core/tokenSeq.js";
import { RUN_WORDS } from "../../src/engine/rng.js";
import { FC_SEED } from "../helpers/fc.js";

test("a chain is kept from the second sighting of its description and recalled from the third", () => {
  const memo = new ChainMemo();
  const d = Int32Array.from([16, 32, 1, 2, 3, 4, 32]);
  const chain = Float64Array.from([11, 12]);
  const out = new Float64Array(4);
  for (let sighting = 1; sighting <= 2; sighting++) {
    assert.equal(memo.recall(d, d.length, out, 2), false, `sighting ${sighting}`);
    memo.remember(d, d.length, chain, 2);
  }
  assert.equal(memo.recall(d, d.length, out, 2), true);
  assert.deepEqual(Array.from(out), [11, 12, 0, 0]);
  const other = Int32Array.from([16, 32, 1, 2, 3, 5, 32]);
  assert.equal(memo.recall(other, other.length, out, 2), false, "another description is not the kept one");
});

/** A sequence of runs picked from a small pool of start states (so that prefixes repeat), plus literal IDs or not. */
function seqOf(picks: { state: number; len: number }[], literal: number[]): TokenSeq {
  const runs = new Int32Array(picks.length * RUN_WORDS);
  let length = literal.length;
  picks.forEach((p, i) => {
    for (let w = 0; w < 4; w++) runs[i * RUN_WORDS + w] = (p.state + 1) * 0x9e3779b1 + w * 0x7f4a7c15;
    runs[i * RUN_WORDS + RUN_WORDS - 1] = p.len;
    length += p.len;
  });
  return new TokenSeq(length, Int32Array.from(literal), 0, 0, 0, 0, 0, runs, 0, picks.length);
}

test("hash chains recalled from the memo are the chains hashed block by block (property)", () => {
  const recall = ChainMemo.prototype.recall;
  let recalled = 0;
  ChainMemo.prototype.recall = function (
    this: ChainMemo,
    d: Int32Array,
    n: number,
    out: Float64Array,
    k: number,
  ): boolean {
    const hit = recall.call(this, d, n, out, k);
    if (hit) recalled++;
    return hit;
  };
  try {
    const pick = fc.record({ state: fc.integer({ min: 0, max: 2 }), len: fc.constantFrom(3, 20, 37) });
    const seqArb = fc.record({
      picks: fc.array(pick, { minLength: 1, maxLength: 4 }),
      literal: fc.oneof(
        fc.constant<number[]>([]),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }),
      ),
      cut: fc.nat(),
    });
    fc.assert(
      fc.property(fc.constantFrom(4, 5, 16), fc.array(seqArb, { minLength: 1, maxLength: 12 }), (bs, seqs) => {
        for (const s of seqs) {
          const seq = seqOf(s.picks, s.literal);
          const count = s.cut % (seq.length + 1);
          const k = Math.floor(count / bs);
          const got = new Float64Array(k + 2);
          assert.equal(seqHashesInto(seq, count, bs, got), k);
          let prev = NO_HASH;
          for (let i = 0; i < k; i++) {
            prev = seqBlockHash(seq, i * bs, bs, prev);
            assert.equal(got[i], prev, `block ${i} of ${k}`);
          }
        }
      }),
      { seed: FC_SEED, numRuns: 300 },
    );
  } finally {
    ChainMemo.prototype.recall = recall;
  }
  assert.ok(recalled > 100, `only ${recalled} chains recalled`);
});

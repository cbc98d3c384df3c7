import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng, RUN_WORDS } from "../../src/engine/rng.js";
import { scratchTokens, TOKEN_VOCABULARY, TokenSeq } from "../../src/core/tokenSeq.js";

function draws(rng: Rng, n: number): number[] {
  const a = new Int32Array(n);
  rng.fillIntn(a, 0, n, TOKEN_VOCABULARY);
  return [...a];
}

test("a token sequence redraws literal tokens, its inline run and its shared runs in order", () => {
  const prefix = Int32Array.from([7, 8, 9]);
  const rng = new Rng(99n);
  const words = [rng.word(0), rng.word(1), rng.word(2), rng.word(3)] as const;
  rng.skip(5);
  rng.uint32(); // a draw between the runs (a sampled length) belongs to neither
  const runs = new Int32Array(3 * RUN_WORDS);
  for (let r = 0; r < 3; r++) rng.recordRun(runs, r * RUN_WORDS, 4 + r);
  const seq = new TokenSeq(3 + 5 + 5 + 6, prefix, 5, words[0], words[1], words[2], words[3], runs, 1, 2);

  const ref = new Rng(99n);
  const inline = draws(ref, 5);
  ref.uint32();
  const run0 = draws(ref, 4);
  const run1 = draws(ref, 5);
  const run2 = draws(ref, 6);
  assert.ok(run0.length > 0);
  const want = [7, 8, 9, ...inline, ...run1, ...run2];
  assert.deepEqual([...seq.toArray()], want);
  for (const n of [0, 2, 3, 6, 8, 12, 19])
    assert.deepEqual([...scratchTokens(seq, n).subarray(0, n)], want.slice(0, n), `first ${n}`);
});

test("TokenSeq.of keeps explicit IDs", () => {
  const ids = Int32Array.from([5, 4, 3, 2, 1]);
  const seq = TokenSeq.of(ids);
  assert.equal(seq.length, 5);
  assert.deepEqual(seq.toArray(), ids);
  assert.deepEqual([...scratchTokens(seq, 3).subarray(0, 3)], [5, 4, 3]);
});

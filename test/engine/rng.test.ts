import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fillIntnFromState, Rng, RUN_WORDS } from "../../src/engine/rng.js";
import { FC_SEED } from "../helpers/fc.js";

test("fillIntn draws exactly what intn would, slot by slot, and leaves the same state", () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.nat(300),
      fc.integer({ min: 1, max: 2 ** 32 }),
      (seed, len, n) => {
        const a = new Rng(seed);
        const b = new Rng(seed);
        const viaFill = new Int32Array(len + 2);
        a.fillIntn(viaFill, 1, len + 1, n);
        const viaIntn = new Int32Array(len + 2);
        for (let i = 1; i <= len; i++) viaIntn[i] = b.intn(n) | 0;
        assert.deepEqual(viaFill, viaIntn);
        assert.equal(a.uint32(), b.uint32());
      },
    ),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("skip and recordRun move the stream exactly as far as the draws would; the run redraws them", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.nat(500), (seed, len) => {
      const drawn = new Rng(seed);
      const viaDraws = new Int32Array(len);
      drawn.fillIntn(viaDraws, 0, len, 128000);
      const skipped = new Rng(seed);
      skipped.skip(len);
      const recorded = new Rng(seed);
      const run = new Int32Array(RUN_WORDS + 1);
      recorded.recordRun(run, 1, len);
      assert.equal(run[5], len);
      const redrawn = new Int32Array(len);
      fillIntnFromState(run, 1, redrawn, 0, len, 128000);
      assert.deepEqual(redrawn, viaDraws);
      const next = drawn.uint32();
      assert.equal(skipped.uint32(), next);
      assert.equal(recorded.uint32(), next);
    }),
    { seed: FC_SEED, numRuns: 200 },
  );
});

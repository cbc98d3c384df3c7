import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { JUMP_MIN, skipState, stepState } from "../../src/engine/xoshiroSkip.js";
import { Rng } from "../../src/engine/rng.js";
import { FC_SEED } from "../helpers/fc.js";

const words = fc.tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer(), fc.integer(), fc.integer());

test("a long skip lands on the state that stepping through every draw reaches", () => {
  fc.assert(
    fc.property(words, fc.integer({ min: 0, max: 40_000 }), fc.nat(3), (w, count, at) => {
      const jumped = new Int32Array(8);
      jumped.set(w, at);
      const stepped = jumped.slice();
      skipState(jumped, at, count);
      stepState(stepped, at, count);
      assert.deepEqual(jumped, stepped, `count ${count}`);
    }),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("skips at the stepping/jumping border and across many powers of two agree with stepping", () => {
  const start = new Int32Array([0x12345678, -0x5a5a5a5b, 7, -1]);
  for (const count of [
    0,
    1,
    JUMP_MIN - 1,
    JUMP_MIN,
    JUMP_MIN + 1,
    4095,
    4096,
    65_537,
    1_000_003,
    2 ** 22 + 2 ** 13 + 5,
  ]) {
    const jumped = start.slice();
    const stepped = start.slice();
    skipState(jumped, 0, count);
    stepState(stepped, 0, count);
    assert.deepEqual(jumped, stepped, `count ${count}`);
  }
});

test("Rng.skip then a draw gives the draw that many draws later", () => {
  const a = new Rng(42n);
  const b = new Rng(42n);
  a.skip(12_345);
  for (let i = 0; i < 12_345; i++) b.uint32();
  assert.equal(a.uint32(), b.uint32());
});

test("the state after a skip is not the starting state (the jump does move the stream)", () => {
  const s = new Int32Array([1, 2, 3, 4]);
  skipState(s, 0, 100_000);
  assert.notDeepEqual(s, new Int32Array([1, 2, 3, 4]));
});

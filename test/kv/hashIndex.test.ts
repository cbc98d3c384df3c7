import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { HashIndex } from "../../src/kv/hashIndex.js";
import { FC_SEED } from "../helpers/fc.js";

test("keys equal in their low 32 bits but not above stay distinct", () => {
  const idx = new HashIndex(4);
  const lo = 123456;
  const keys = [lo, lo + 4294967296, lo + 2 ** 52, 2 ** 53 - 1, 0];
  keys.forEach((k, i) => idx.set(k, i));
  keys.forEach((k, i) => assert.equal(idx.get(k), i));
  idx.delete(lo + 4294967296);
  assert.equal(idx.get(lo + 4294967296), -1);
  assert.equal(idx.get(lo), 0);
  assert.equal(idx.get(lo + 2 ** 52), 2);
  assert.equal(idx.size, 4);
});

test("agrees with a Map through random sets, deletes and growth, and copies exactly", () => {
  const idx = new HashIndex(16);
  const ref = new Map<number, number>();
  let s = 7;
  const rnd = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) | 0;
    return s >>> 0;
  };
  // Few distinct low words (clustered probe runs) and high words up to 2^21.
  const key = (): number => (rnd() % 2048) * 4294967296 + (rnd() % 64);
  for (let step = 0; step < 20000; step++) {
    const k = key();
    if (rnd() % 3 === 0) {
      idx.delete(k);
      ref.delete(k);
    } else {
      idx.set(k, step);
      ref.set(k, step);
    }
  }
  assert.equal(idx.size, ref.size);
  for (const [k, v] of ref) assert.equal(idx.get(k), v);
  const copy = new HashIndex(16);
  copy.copyFrom(idx);
  for (let i = 0; i < 5000; i++) {
    const k = key();
    assert.equal(copy.get(k), ref.get(k) ?? -1);
  }
});

test("the keyed-by-slot operations act as get, set and delete of the slot's key", () => {
  const keys = new Float64Array([7, 7 + 4294967296, 2 ** 53 - 1, 12345678901234]);
  const a = new HashIndex(2);
  const b = new HashIndex(2);
  for (let i = 0; i < keys.length; i++) {
    a.setAt(keys, i, i * 10);
    b.set(keys[i]!, i * 10);
  }
  a.deleteAt(keys, 1);
  b.delete(keys[1]!);
  for (let i = 0; i < keys.length; i++) {
    assert.equal(a.getAt(keys, i), b.get(keys[i]!));
    assert.equal(a.get(keys[i]!), i === 1 ? -1 : i * 10);
  }
  assert.equal(a.size, 3);
});

test("findRunAt finds what get() finds, up to the first key not found (property)", () => {
  fc.assert(
    fc.property(
      // Few distinct low words: keys often sit away from their home slot, behind others.
      fc.array(fc.tuple(fc.nat({ max: 12 }), fc.nat({ max: 1 })), { minLength: 0, maxLength: 60 }),
      fc.array(fc.tuple(fc.nat({ max: 12 }), fc.nat({ max: 1 })), { minLength: 0, maxLength: 30 }),
      fc.nat({ max: 5 }),
      (stored, asked, from) => {
        const idx = new HashIndex(4);
        const key = ([lo, hi]: [number, number]): number => hi * 4294967296 + lo;
        stored.forEach((k, i) => idx.set(key(k), i));
        const keys = Float64Array.from(asked.map(key));
        const start = Math.min(from, keys.length);
        const out = new Int32Array(keys.length).fill(-9);
        const end = idx.findRunAt(keys, start, keys.length, out);
        let want = start;
        while (want < keys.length && idx.get(keys[want]!) >= 0) want++;
        assert.equal(end, want);
        for (let i = 0; i < keys.length; i++)
          assert.equal(out[i], i >= start && i < end ? idx.get(keys[i]!) : -9, `out[${i}]`);
      },
    ),
    { seed: FC_SEED, numRuns: 500 },
  );
});

// Counts by number in typed arrays hold what a Map of counts holds, in the same order.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { OrderedCounts } from "../../src/instance/orderedCounts.js";
import { FC_SEED } from "../helpers/fc.js";

/** Keys that collide in a small table, integers and not, and the keys a Map treats specially. */
const keyArb = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 0, max: 40 }).map((n) => n * 1024),
  fc.integer({ min: -5, max: 5 }).map((n) => n + 0.25),
  fc.constantFrom(0, -0, NaN, 2 ** 40, -(2 ** 31), 1e300),
);

function entries(c: OrderedCounts): [number, number][] {
  return Array.from({ length: c.size }, (_, i) => [c.keyAt(i), c.countAt(i)]);
}

test("counts added by number are a Map's counts, in its order (property)", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(keyArb, fc.integer({ min: 1, max: 1000 })), { maxLength: 300 }), (adds) => {
      const counts = new OrderedCounts();
      const reference = new Map<number, number>();
      for (const [k, c] of adds) {
        counts.add(k, c);
        reference.set(k, (reference.get(k) ?? 0) + c);
      }
      assert.deepEqual(entries(counts), [...reference]);
      const into = new Map<number, number>([[3, 1]]);
      const expected = new Map(into);
      for (const [k, c] of reference) expected.set(k, (expected.get(k) ?? 0) + c);
      counts.addTo(into);
      assert.deepEqual([...into], [...expected]);
    }),
    { seed: FC_SEED, numRuns: 300 },
  );
});

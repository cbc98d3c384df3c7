import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { IndexHeap } from "../../src/engine/indexHeap.js";
import { FC_SEED } from "../helpers/fc.js";

test("the index heap's top is the smallest key, lowest index first on ties, as a scan finds it", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.array(fc.tuple(fc.nat(39), fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(Infinity))), {
        maxLength: 200,
      }),
      (n, updates) => {
        const heap = new IndexHeap(n);
        const keys = new Array<number>(n).fill(Infinity);
        for (const [i, k] of updates) {
          if (i >= n) continue;
          heap.update(i, k);
          keys[i] = k;
          let best = 0;
          for (let j = 1; j < n; j++) if (keys[j]! < keys[best]!) best = j;
          assert.equal(heap.topKey(), keys[best]);
          if (keys[best] !== Infinity) assert.equal(heap.top(), best);
          assert.equal(heap.keyOf(i), k);
        }
      },
    ),
    { seed: FC_SEED, numRuns: 300 },
  );
});

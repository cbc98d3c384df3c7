import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KvStore } from "../../src/kv/kvStore.js";
import { FC_SEED } from "../helpers/fc.js";
import { opArb, requestOf, Side, specArb } from "./storeSides.js";

// A store that keeps private blocks off its shared index must answer every lookup and allocation
// exactly as a store that indexes every block (kv/privateEntries.ts). Random requests (some with
// private draws after a shared prefix, some made only of shared literal tokens), random admission,
// chunked prefill, decode, preemption, completion, and a cache small enough for allocations to fail
// and roll back, run side by side on the two stores.

test("keeping private blocks off the shared index changes no lookup and no allocation (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 3, max: 24 }),
      fc.array(specArb, { minLength: 1, maxLength: 7 }),
      fc.array(opArb, { minLength: 1, maxLength: 150 }),
      (bs, blocks, specs, ops) => {
        const ref = new Side(specs, bs, new KvStore(blocks, bs, false));
        const opt = new Side(specs, bs, new KvStore(blocks, bs, true));
        for (const op of ops) {
          const a = ref.apply(op);
          const b = opt.apply(op);
          assert.equal(b, a, `after ${JSON.stringify(op)}`);
          assert.equal(opt.state(), ref.state());
        }
      },
    ),
    { seed: FC_SEED, numRuns: 400 },
  );
});

test("a request preempted and readmitted finds its private blocks where the shared index would", () => {
  const bs = 4;
  const found = [false, true].map((privateBlocks) => {
    const kv = new KvStore(10, bs, privateBlocks);
    const r = requestOf({ literal: [], run: 20, seed: 1, output: 4 }, bs, 0);
    assert.ok(kv.allocate(r, 0, 16, 0));
    assert.equal(kv.indexSize(), privateBlocks ? 0 : 4, "private blocks stay off the shared index");
    kv.releaseToRetry(r);
    const again = kv.cachedPrefix(r);
    // Another request takes freed blocks (the oldest freed first: r's last blocks): their entries go.
    const other = requestOf({ literal: [], run: 32, seed: 1, output: 0 }, bs, 1);
    assert.ok(kv.allocate(other, 0, 32, 0));
    return [again, kv.cachedPrefix(r)];
  });
  assert.deepEqual(found[0], [4, 2]);
  assert.deepEqual(found[1], found[0]);
});

test("a failed allocation gives back the entries it took and the ones it evicted, as the shared index does", () => {
  const bs = 2;
  const outcome = [false, true].map((privateBlocks) => {
    const kv = new KvStore(6, bs, privateBlocks);
    const seen: number[] = [];
    // r and then q are preempted holding two and three blocks; o holds the last block.
    const r = requestOf({ literal: [], run: 12, seed: 1, output: 0 }, bs, 0);
    assert.ok(kv.allocate(r, 0, 4, 0));
    kv.releaseToRetry(r);
    const q = requestOf({ literal: [], run: 8, seed: 1, output: 0 }, bs, 1);
    assert.ok(kv.allocate(q, 0, 6, 0));
    kv.releaseToRetry(q);
    const o = requestOf({ literal: [], run: 2, seed: 1, output: 0 }, bs, 2);
    assert.ok(kv.allocate(o, 0, 2, 0));
    seen.push(kv.cachedPrefix(q));
    // r comes back: it attaches its two blocks, takes q's three as fresh blocks (their entries
    // go, its own new ones come) and fails on the fourth. The rollback puts q's entries back and
    // takes r's new ones away.
    const n = kv.cachedPrefix(r);
    seen.push(n);
    assert.equal(kv.allocate(r, n * bs, 12, n), false);
    seen.push(kv.cachedPrefix(q), kv.cachedPrefix(r), kv.used);
    return seen;
  });
  assert.deepEqual(outcome[0], [3, 2, 3, 2, 1]);
  assert.deepEqual(outcome[1], outcome[0]);
});

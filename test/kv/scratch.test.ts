// Scratch blocks for a step's speculative slots (docs/speculative.md "KV"): taken from the free
// list as used, their cached content dropped, all returned at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { KvStore } from "../../src/kv/kvStore.js";
import { TieredKvStore } from "../../src/kv/tieredKvStore.js";
import { Request } from "../../src/core/request.js";
import { makeRequest } from "../../src/core/workloadRequest.js";

const range = (a: number, n: number): number[] => Array.from({ length: n }, (_, i) => a + i);

for (const make of [() => new KvStore(6, 4), () => new TieredKvStore(6, 4, 4, 0.9, 100, 0)]) {
  test(`${make().constructor.name}: scratch blocks count as used, drop cached content and all come back`, () => {
    const kv = make();
    // A finished request leaves two full cached blocks on the free list.
    const a = new Request(makeRequest("request_0", 0, range(1, 8), [1]), 0, 4);
    assert.ok(kv.allocate(a, 0, 8, kv.cachedPrefix(a)));
    kv.release(a);
    assert.equal(kv.indexSize(), 2);
    assert.equal(kv.reserveScratch(7), false, "more than are free: nothing taken");
    assert.equal(kv.used, 0);
    assert.ok(kv.reserveScratch(4));
    assert.ok(kv.reserveScratch(2));
    assert.equal(kv.scratchBlocks, 6);
    assert.equal(kv.used, 6);
    assert.equal(kv.freeBlocks(), 0);
    assert.equal(kv.indexSize(), 0, "overwritten blocks lose their cached prefix");
    const b = new Request(makeRequest("request_1", 0, range(1, 8), [1]), 0, 4);
    assert.equal(kv.allocate(b, 0, 8, kv.cachedPrefix(b)), false, "no block free while the scratch is held");
    kv.releaseScratch();
    assert.equal(kv.scratchBlocks, 0);
    assert.equal(kv.used, 0);
    assert.equal(kv.freeListIds().length, 6);
    for (let i = 0; i < 6; i++) assert.equal(kv.refCountOf(i), 0);
    assert.ok(kv.allocate(b, 0, 8, kv.cachedPrefix(b)));
  });
}

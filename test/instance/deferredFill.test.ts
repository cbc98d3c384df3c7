// A decoding request whose last block holds private content stays out of the step that fills the
// block (Instance.enroll, KvCache.mayFillLater): the block is filled when the request comes back.
// The results must not tell it from visiting that step, preemptions included (a preempted
// request keeps entries for its full private blocks, kv/privateEntries.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { KvStore } from "../../src/kv/kvStore.js";
import {
  assertSameRuns,
  runTrace as runOnce,
  traceConfigArb as configArb,
  traceWorkloadArb,
  withMethodFalse,
} from "./helpers.js";

const workloadArb = traceWorkloadArb(2000, 300);

/** Runs with every block-filling step visited (no block filled later). */
const visitingEveryFill = <T>(f: () => T): T => withMethodFalse(KvStore.prototype, "mayFillLater", f);

test("blocks filled later (property): the same metrics, ITLs, preemptions and KV state as visiting every fill", () => {
  let filledLater = 0;
  let preempted = 0;
  const fill = KvStore.prototype.fillLastBlock;
  KvStore.prototype.fillLastBlock = function (this: KvStore, req) {
    filledLater++;
    fill.call(this, req);
  };
  try {
    fc.assert(
      fc.property(configArb, workloadArb, (c, w) => {
        const lazy = runOnce(c, w);
        const visited = visitingEveryFill(() => runOnce(c, w));
        assertSameRuns(lazy, visited);
        for (const inst of lazy.instances) preempted += inst.preemptionCount;
      }),
      { seed: FC_SEED, numRuns: 80 },
    );
  } finally {
    KvStore.prototype.fillLastBlock = fill;
  }
  assert.ok(filledLater > 100, `only ${filledLater} blocks filled later: the property exercises little`);
  assert.ok(preempted > 10, `only ${preempted} preemptions: the property exercises little`);
});

// A decoding request whose last block holds private content stays out of the step that fills the
// block (Instance.enroll, KvCache.mayFillLater): the block is filled when the request comes back.
// The results must not tell it from visiting that step, preemptions included (a preempted
// request keeps entries for its full private blocks, kv/privateEntries.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { run, simConfig } from "../helpers/sim.js";
import { KvStore } from "../../src/kv/kvStore.js";
import type { KvCache } from "../../src/kv/kvCache.js";
import { mooncakeWorkload } from "../../src/workload/mooncake/workload.js";
import type { WorkloadRequest } from "../../src/core/workloadRequest.js";
import { renderMetricBlocks, renderTail } from "../../src/metrics/render.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { ids, traceFile, type Line } from "../workload/mooncake/helpers.js";

const TRACE_BLOCK = 64;

const configArb = fc.record({
  instances: fc.integer({ min: 1, max: 3 }),
  blockSize: fc.constantFrom(4, 8, 16, 64),
  totalKvBlocks: fc.oneof(fc.integer({ min: 40, max: 120 }), fc.integer({ min: 400, max: 2000 })),
  maxRunning: fc.integer({ min: 1, max: 6 }),
});

/** Requests opening with one of three shared documents (or none), then ids of their own. */
const workloadArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 2000 })),
    doc: fc.integer({ min: -1, max: 2 }),
    own: fc.integer({ min: 0, max: 3 }),
    cut: fc.integer({ min: 1, max: TRACE_BLOCK }),
    output: fc.integer({ min: 1, max: 300 }),
  }),
  { minLength: 1, maxLength: 16 },
);

type Cfg = typeof configArb extends fc.Arbitrary<infer T> ? T : never;
type Wl = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

function requests(w: Wl): WorkloadRequest[] {
  let t = 0;
  let own = 1000;
  const lines: Line[] = [];
  for (const r of w) {
    t += r.gap;
    const hashIds = [...(r.doc >= 0 ? ids(r.doc * 10, 2) : []), ...ids(own, r.own)];
    own += r.own;
    if (hashIds.length === 0) hashIds.push(own++);
    const input = hashIds.length * TRACE_BLOCK - TRACE_BLOCK + r.cut;
    lines.push({ timestamp: t, input_length: input, output_length: r.output, hash_ids: hashIds });
  }
  const { source } = mooncakeWorkload(
    { path: traceFile(lines), block_size: TRACE_BLOCK, time_scale: 1, concurrency: 0 },
    { horizon: Infinity, maxRequests: 0, seed: 1n, timeoutUs: 0 },
  );
  const out: WorkloadRequest[] = [];
  for (let r = source.next(); r !== null; r = source.next()) out.push(r);
  return out;
}

function runOnce(c: Cfg, w: Wl): ClusterRun {
  const cfg = simConfig({
    alpha: [200, 2, 100],
    beta: [1000, 3, 2],
    cluster: { numInstances: c.instances, routing: { policy: "round-robin", scorers: [] } },
    kv: { totalKvBlocks: c.totalKvBlocks, blockSize: c.blockSize },
    engine: { maxRunning: c.maxRunning },
  });
  return run(cfg, requests(w));
}

const stdoutOf = (r: ClusterRun): string =>
  renderMetricBlocks(r.metrics) + renderTail(r.metrics, { printFairness: false, summarizeTrace: false });

/** Every block's hash: what each block holds (freed blocks keep their content). */
function blockHashes(kv: KvCache): number[] {
  assert.ok(kv instanceof KvStore);
  return Array.from({ length: kv.totalBlocks }, (_, b) => kv.hashOf(b));
}

/** Runs with every block-filling step visited (no block filled later). */
function visitingEveryFill<T>(f: () => T): T {
  const own = Object.getOwnPropertyDescriptor(KvStore.prototype, "mayFillLater")!;
  Object.defineProperty(KvStore.prototype, "mayFillLater", { ...own, value: () => false });
  try {
    return f();
  } finally {
    Object.defineProperty(KvStore.prototype, "mayFillLater", own);
  }
}

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
        assert.equal(stdoutOf(lazy), stdoutOf(visited));
        for (let i = 0; i < lazy.instances.length; i++) {
          const a = lazy.instances[i]!;
          const b = visited.instances[i]!;
          assert.equal(a.clock, b.clock, `${a.id} clock`);
          assert.equal(a.stepCount, b.stepCount, `${a.id} step count`);
          assert.equal(a.preemptionCount, b.preemptionCount, `${a.id} preemptions`);
          assert.deepEqual(a.kv.freeListIds(), b.kv.freeListIds(), `${a.id} free list`);
          assert.equal(a.kv.indexSize(), b.kv.indexSize(), `${a.id} prefix index`);
          assert.deepEqual(blockHashes(a.kv), blockHashes(b.kv), `${a.id} block contents`);
          const pa = new Map<number, number>();
          const pb = new Map<number, number>();
          a.pooledItl(pa);
          b.pooledItl(pb);
          assert.deepEqual([...pa], [...pb], `${a.id} pooled ITL`);
          preempted += a.preemptionCount;
        }
      }),
      { seed: FC_SEED, numRuns: 80 },
    );
  } finally {
    KvStore.prototype.fillLastBlock = fill;
  }
  assert.ok(filledLater > 100, `only ${filledLater} blocks filled later: the property exercises little`);
  assert.ok(preempted > 10, `only ${preempted} preemptions: the property exercises little`);
});

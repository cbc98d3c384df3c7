// Cohort members due at a step that only needs their token's KV placed (a fresh block, or one
// more token in the last) are taken through it inside the steady run (DecodeCohort.passDue,
// docs/architecture.md "Steady steps"). The results must not tell it from leaving them to the full
// step, preemptions and shared documents included.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { run, simConfig } from "../helpers/sim.js";
import { DecodeCohort } from "../../src/instance/decodeCohort.js";
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

/** Requests opening with one of three shared documents (or none), then ids of their own (private content). */
const workloadArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 20000 })),
    doc: fc.integer({ min: -1, max: 2 }),
    own: fc.integer({ min: 0, max: 3 }),
    cut: fc.integer({ min: 1, max: TRACE_BLOCK }),
    output: fc.integer({ min: 1, max: 400 }),
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

/** Runs f with every due member left to the full step (passDue always declining), as before it existed. */
function leavingDueToFullSteps<T>(f: () => T): T {
  const own = Object.getOwnPropertyDescriptor(DecodeCohort.prototype, "passDue")!;
  Object.defineProperty(DecodeCohort.prototype, "passDue", { ...own, value: () => false });
  try {
    return f();
  } finally {
    Object.defineProperty(DecodeCohort.prototype, "passDue", own);
  }
}

const stdoutOf = (r: ClusterRun): string =>
  renderMetricBlocks(r.metrics) + renderTail(r.metrics, { printFairness: false, summarizeTrace: false });

/** Every block's hash: what each block holds (freed blocks keep their content). */
function blockHashes(kv: KvCache): number[] {
  assert.ok(kv instanceof KvStore);
  return Array.from({ length: kv.totalBlocks }, (_, b) => kv.hashOf(b));
}

function assertSameRuns(a: ClusterRun, b: ClusterRun): void {
  assert.equal(stdoutOf(a), stdoutOf(b));
  for (let i = 0; i < a.instances.length; i++) {
    const x = a.instances[i]!;
    const y = b.instances[i]!;
    assert.equal(x.clock, y.clock, `${x.id} clock`);
    assert.equal(x.stepCount, y.stepCount, `${x.id} step count`);
    assert.equal(x.preemptionCount, y.preemptionCount, `${x.id} preemptions`);
    assert.deepEqual(x.kv.freeListIds(), y.kv.freeListIds(), `${x.id} free list`);
    assert.equal(x.kv.indexSize(), y.kv.indexSize(), `${x.id} prefix index`);
    assert.deepEqual(blockHashes(x.kv), blockHashes(y.kv), `${x.id} block contents`);
    const px = new Map<number, number>();
    const py = new Map<number, number>();
    x.pooledItl(px);
    y.pooledItl(py);
    assert.deepEqual([...px], [...py], `${x.id} pooled ITL`);
  }
}

/** Steps run as events, over all instances. */
const eventSteps = (r: ClusterRun): number => r.instances.reduce((n, i) => n + i.stepCount - i.steadySteps, 0);

test("due members taken through steady steps (property): the same metrics, ITLs, preemptions and KV state", () => {
  let saved = 0;
  let preempted = 0;
  fc.assert(
    fc.property(configArb, workloadArb, (c, w) => {
      const inPlace = runOnce(c, w);
      const full = leavingDueToFullSteps(() => runOnce(c, w));
      assertSameRuns(inPlace, full);
      saved += eventSteps(full) - eventSteps(inPlace);
      for (const inst of inPlace.instances) preempted += inst.preemptionCount;
    }),
    { seed: FC_SEED, numRuns: 80 },
  );
  assert.ok(saved > 1000, `only ${saved} full steps saved: the property exercises little`);
  assert.ok(preempted > 10, `only ${preempted} preemptions: the property exercises little`);
});

test("a lone decode takes its new KV blocks inside the steady run", () => {
  // 480 tokens of private output at 16-token blocks: a block every 16 steps, each taken in place.
  const c: Cfg = { instances: 1, blockSize: 16, totalKvBlocks: 400, maxRunning: 4 };
  const w: Wl = [{ gap: 0, doc: -1, own: 1, cut: 40, output: 480 }];
  const inPlace = runOnce(c, w);
  const full = leavingDueToFullSteps(() => runOnce(c, w));
  assertSameRuns(inPlace, full);
  assert.ok(eventSteps(inPlace) <= 3, `${eventSteps(inPlace)} steps as events`);
  assert.ok(eventSteps(full) >= 30, `${eventSteps(full)} steps as events without passDue`);
});

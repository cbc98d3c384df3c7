// Shared by the decode-cohort tests (deferred fills, due members taken through steady steps,
// steady steps): small Mooncake-style workloads with shared documents, and the comparison of two
// runs that must not be told apart.

import assert from "node:assert/strict";
import fc from "fast-check";
import { run, simConfig } from "../helpers/sim.js";
import { KvStore } from "../../src/kv/kvStore.js";
import type { KvCache } from "../../src/kv/kvCache.js";
import { mooncakeWorkload } from "../../src/workload/mooncake/workload.js";
import type { WorkloadRequest } from "../../src/core/workloadRequest.js";
import { renderMetricBlocks, renderTail } from "../../src/metrics/render.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { ids, traceFile, type Line } from "../workload/mooncake/helpers.js";

/** Tokens per trace hash id. */
const TRACE_BLOCK = 64;

export const stdoutOf = (r: ClusterRun): string =>
  renderMetricBlocks(r.metrics) + renderTail(r.metrics, { printFairness: false, summarizeTrace: false });

/** Every block's hash: what each block holds (freed blocks keep their content). */
export function blockHashes(kv: KvCache): number[] {
  assert.ok(kv instanceof KvStore);
  return Array.from({ length: kv.totalBlocks }, (_, b) => kv.hashOf(b));
}

/**
 * Two runs alike: stdout, and per instance the clock, steps, preemptions, free list, prefix index,
 * block contents and pooled ITL.
 */
export function assertSameRuns(a: ClusterRun, b: ClusterRun): void {
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

/** Runs f with `proto[name]` answering false (a shortcut switched off), then puts the method back. */
export function withMethodFalse<T>(proto: object, name: string, f: () => T): T {
  const own = Object.getOwnPropertyDescriptor(proto, name)!;
  Object.defineProperty(proto, name, { ...own, value: () => false });
  try {
    return f();
  } finally {
    Object.defineProperty(proto, name, own);
  }
}

export const traceConfigArb = fc.record({
  instances: fc.integer({ min: 1, max: 3 }),
  blockSize: fc.constantFrom(4, 8, 16, 64),
  totalKvBlocks: fc.oneof(fc.integer({ min: 40, max: 120 }), fc.integer({ min: 400, max: 2000 })),
  maxRunning: fc.integer({ min: 1, max: 6 }),
});

/**
 * Requests opening with one of three shared documents (or none), then ids of their own (private
 * content); gaps up to `maxGap` µs, outputs up to `maxOutput` tokens.
 */
export function traceWorkloadArb(maxGap: number, maxOutput: number) {
  return fc.array(
    fc.record({
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: maxGap })),
      doc: fc.integer({ min: -1, max: 2 }),
      own: fc.integer({ min: 0, max: 3 }),
      cut: fc.integer({ min: 1, max: TRACE_BLOCK }),
      output: fc.integer({ min: 1, max: maxOutput }),
    }),
    { minLength: 1, maxLength: 16 },
  );
}

export type TraceConfig = typeof traceConfigArb extends fc.Arbitrary<infer T> ? T : never;
export type TraceWorkload = ReturnType<typeof traceWorkloadArb> extends fc.Arbitrary<infer T> ? T : never;

function traceRequests(w: TraceWorkload): WorkloadRequest[] {
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

/** One run of the trace workload on round-robin instances with quiet blackbox coefficients. */
export function runTrace(c: TraceConfig, w: TraceWorkload): ClusterRun {
  const cfg = simConfig({
    alpha: [200, 2, 100],
    beta: [1000, 3, 2],
    cluster: { numInstances: c.instances, routing: { policy: "round-robin", scorers: [] } },
    kv: { totalKvBlocks: c.totalKvBlocks, blockSize: c.blockSize },
    engine: { maxRunning: c.maxRunning },
  });
  return run(cfg, traceRequests(w));
}

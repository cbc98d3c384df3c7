// PD invariants over random topologies, deciders, policies and small workloads
// (docs/prefill-decode.md "Invariants").
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { run, simConfig } from "../helpers/sim.js";
import { makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import { renderMetricBlocks, renderTail } from "../../src/metrics/render.js";
import type { SimConfig } from "../../src/sim/simConfig.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { ROLE_DECODE, ROLE_PREFILL } from "../../src/pd/topology.js";
import { DONE, DROPPED_DECODE, DROPPED_PREFILL, PENDING, REJECTED } from "../../src/pd/records.js";
import { pdDeciders } from "../../src/pd/deciders.js";
import { routerFactory } from "../../src/sim/policyServices.js";
import { bindFeature } from "../../src/features/registry.js";
import { pd as pdFeature } from "../../src/features/pd/pd.js";
import { pdOf } from "../../src/features/pd/access.js";
import type { ScorerSpec } from "../../src/cluster/scorers/scorer.js";

const PREFIXES = [[], Array.from({ length: 32 }, (_, i) => 70000 + i), Array.from({ length: 64 }, (_, i) => 80000 + i)];

/** Valid topologies: prefill + decode, or with shared instances any mix; unassigned instances allowed. */
const topologyArb = fc
  .record({
    prefill: fc.integer({ min: 0, max: 2 }),
    decode: fc.integer({ min: 0, max: 2 }),
    shared: fc.integer({ min: 0, max: 2 }),
    spare: fc.integer({ min: 0, max: 1 }),
  })
  .filter((t) => t.shared > 0 || (t.prefill > 0 && t.decode > 0));

const configArb = fc.record({
  topology: topologyArb,
  decider: fc.constantFrom("always", "always", "prefix-threshold", "never"),
  threshold: fc.constantFrom(0, 16, 40),
  routingPolicy: fc.constantFrom("round-robin", "least-loaded", "weighted"),
  poolScorers: fc.constantFrom(null, [{ name: "kv-utilization", weight: 2 }], [{ name: "queue-depth", weight: 1 }]),
  bandwidth: fc.constantFrom(0.01, 1, 25),
  baseLatency: fc.constantFrom(0, 0.05, 2),
  contention: fc.boolean(),
  totalKvBlocks: fc.oneof(fc.integer({ min: 6, max: 30 }), fc.integer({ min: 30, max: 400 })),
  maxRunning: fc.integer({ min: 1, max: 6 }),
  longPrefillThreshold: fc.constantFrom(0, 0, 16),
  cacheSignalDelay: fc.constantFrom(0, 50000),
  traced: fc.boolean(),
});

const workloadArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 30000 })),
    prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
    tail: fc.integer({ min: 0, max: 80 }),
    output: fc.integer({ min: 0, max: 30 }),
  }),
  { minLength: 1, maxLength: 25 },
);

type Cfg = typeof configArb extends fc.Arbitrary<infer T> ? T : never;
type Wl = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

function buildConfig(c: Cfg, horizon = 1e10): SimConfig {
  const t = c.topology;
  const cfg = simConfig({
    horizon,
    alpha: [200, 2, 100],
    beta: [1000, 3, 2],
    params: { pdPrefixThreshold: c.threshold, cacheSignalDelay: c.cacheSignalDelay },
    cluster: {
      numInstances: t.prefill + t.decode + t.shared + t.spare,
      routing: { policy: c.routingPolicy, scorers: [{ name: "queue-depth", weight: 1 }] },
    },
    kv: { totalKvBlocks: c.totalKvBlocks },
    engine: { maxRunning: c.maxRunning, longPrefillThreshold: c.longPrefillThreshold },
    trace: { level: c.traced ? "decisions" : "none" },
  });
  const params = { pdPrefixThreshold: c.threshold, cacheSignalDelay: c.cacheSignalDelay };
  const cluster = { numInstances: cfg.cluster.numInstances, blockSize: cfg.kv.blockSize, slo: cfg.policy.slo };
  const router = (scorers: readonly ScorerSpec[] | null) =>
    routerFactory(params, cfg.cluster.routing, scorers, cluster);
  const settings = {
    counts: { prefill: t.prefill, decode: t.decode, shared: t.shared, encode: 0 },
    numInstances: cfg.cluster.numInstances,
    blockSize: cfg.kv.blockSize,
    decider: c.decider,
    buildDecider: pdDeciders.bind(c.decider, params),
    cacheSignalDelay: c.cacheSignalDelay,
    transfer: {
      bytesPerToken: 4096,
      blockSize: 16,
      bandwidth: c.bandwidth,
      baseLatency: c.baseLatency,
      contention: c.contention,
    },
    prefillPolicy: router(c.poolScorers),
    decodePolicy: router(c.poolScorers),
    prefillPool: null,
    decodePool: null,
  };
  return { ...cfg, features: [bindFeature(pdFeature, settings)] };
}

function buildWorkload(w: Wl): WorkloadRequest[] {
  let t = 0;
  return w.map((x, i) => {
    t += x.gap;
    const prompt = [
      ...PREFIXES[x.prefix]!,
      ...Array.from({ length: x.tail }, (_, k) => 1 + ((i * 131 + k * 7) % 60000)),
    ];
    return makeRequest(
      `request_${i}`,
      t,
      prompt,
      Array.from({ length: x.output }, (_, k) => 90000 + k),
    );
  });
}

const stdoutOf = (r: ClusterRun): string =>
  renderMetricBlocks(r.metrics) + renderTail(r.metrics, { printFairness: false, summarizeTrace: true });

/** Runs one case, checking where every request and sub-request is routed. */
function runChecked(cfg: SimConfig, reqs: WorkloadRequest[]): ClusterRun {
  const roles: number[] = [];
  const routed: [string, number][] = [];
  const r = run(cfg, reqs, {
    clusterObserver: { onRouted: (req, i) => routed.push([req.id, i]), onClock: () => undefined },
  });
  const topo = pdOf(r)!.topology;
  for (let i = 0; i < topo.roles.length; i++) roles.push(topo.roles[i]!);
  for (const [id, i] of routed) {
    // INV-PD-2: prefill sub-requests only on prefill-capable instances, all else on decode-capable ones.
    const bit = id.endsWith("_prefill") ? ROLE_PREFILL : ROLE_DECODE;
    assert.ok((roles[i]! & bit) !== 0, `${id} ran on instance_${i} (role ${roles[i]})`);
  }
  return r;
}

test("PD runs to completion: conservation, causality, transfers, KV blocks, determinism", () => {
  fc.assert(
    fc.property(configArb, workloadArb, (c, w) => {
      const reqs = buildWorkload(w);
      const r = runChecked(buildConfig(c), reqs);
      const pd = pdOf(r)!;
      const m = r.metrics;
      const n = reqs.length;
      // Conservation at the user level: every request is completed, dropped or rejected, once.
      assert.equal(m.cluster.injected_requests + (m.anomalies.routingRejections ?? 0), n);
      assert.equal(m.cluster.completed_requests + m.cluster.dropped_unservable, m.cluster.injected_requests);
      assert.equal(m.cluster.still_queued + m.cluster.still_running, 0);
      assert.deepEqual(Array.from(r.inFlight), new Array(r.inFlight.length).fill(0));
      const outcomes = pd.parents.map((p) => p.outcome);
      assert.ok(!outcomes.includes(PENDING));
      const direct = n - pd.parents.length;
      assert.ok(direct >= 0);
      if (c.decider === "never") assert.equal(pd.parents.length, 0);
      // Under always, a request is served whole only when its decode instance can never hold it.
      if (c.decider === "always") assert.ok(m.cluster.dropped_unservable >= direct);
      assert.equal(pd.droppedAtDecode, outcomes.filter((o) => o === DROPPED_DECODE).length);
      assert.equal(outcomes.filter((o) => o === REJECTED).length, 0);
      // INV-PD-3: every transfer that started completed.
      assert.equal(pd.transfersInitiated, pd.transfersCompleted);
      assert.equal(pd.transfer.active, 0);
      // INV-PD-6: user-level rows only, one per served or unfinished request.
      const ids = r.ledger.ids.filter((_, i) => r.ledger.isRegistered(i));
      assert.ok(ids.every((id) => !id.endsWith("_prefill") && !id.endsWith("_decode")));
      assert.equal(new Set(ids).size, ids.length);
      assert.equal(ids.length, m.cluster.completed_requests);
      checkParents(r);
      // KV-block conservation: nothing is held once everything finished (reservations included).
      for (const inst of r.instances) assert.equal(inst.kv.used, 0, `${inst.id} holds KV blocks at the end`);
      if (r.trace !== null) {
        assert.equal(r.trace.disaggregations.length, n);
        assert.equal(r.trace.prefillRoutings.length, pd.parents.length);
        assert.equal(r.trace.routings.length, direct);
        assert.equal(r.trace.kvTransfers.length, pd.decodeEnqueued);
      }
      assert.equal(stdoutOf(run(buildConfig(c), reqs)), stdoutOf(r));
    }),
    { seed: FC_SEED, numRuns: 150 },
  );
});

/** INV-PD-1/4 and the user-level latencies of every split request. */
function checkParents(r: ClusterRun): void {
  const l = r.ledger;
  const row = new Map<string, number>();
  for (let i = 0; i < l.size; i++) if (l.isRegistered(i)) row.set(l.id(i), i);
  for (const p of pdOf(r)!.parents) {
    const t0 = p.parent.arrival;
    if (p.outcome === DROPPED_PREFILL) continue;
    assert.ok(
      t0 <= p.prefillEnqueue && p.prefillEnqueue <= p.prefillComplete && p.prefillComplete <= p.transferStart,
      p.parent.id,
    );
    if (p.outcome === DROPPED_DECODE) {
      assert.ok(!row.has(p.parent.id), "a request dropped at the decode side has no row");
      continue;
    }
    assert.equal(p.outcome, DONE);
    assert.ok(
      p.local ? p.transferStart === p.transferComplete : p.transferStart < p.transferComplete,
      `${p.parent.id}: transfer times`,
    );
    assert.ok(p.transferComplete === p.decodeEnqueue && p.decodeEnqueue <= p.completion);
    const i = row.get(p.parent.id)!;
    assert.ok(l.isCompleted(i));
    assert.equal(l.instance[i], p.decodeInstance);
    // The user's first token comes after the prefill ended and the KV arrived.
    assert.ok(l.ttft[i]! > p.transferComplete - t0, `${p.parent.id}: TTFT ${l.ttft[i]} before its KV arrived`);
    assert.ok(l.ttft[i]! >= p.prefillComplete - t0);
    assert.ok(l.e2e[i]! >= l.ttft[i]!, `${p.parent.id}: E2E below TTFT`);
  }
}

test("PD runs cut by the horizon count each request once", () => {
  fc.assert(
    fc.property(configArb, workloadArb, fc.integer({ min: 1, max: 60000 }), (c, w, horizon) => {
      const reqs = buildWorkload(w);
      const r = runChecked(buildConfig(c, horizon), reqs);
      const pd = pdOf(r)!;
      const m = r.metrics.cluster;
      const count = (o: number): number => pd.parents.filter((p) => p.outcome === o).length;
      assert.ok(pd.inTransfer() >= 0);
      assert.ok(pd.transfersInitiated >= pd.transfersCompleted);
      assert.ok(pd.transfersInitiated - pd.transfersCompleted <= pd.inTransfer());
      // Served split requests are counted once among the completions, dropped ones among the drops.
      const rows = r.ledger.ids.filter((_, i) => r.ledger.isRegistered(i)).length;
      assert.ok(m.completed_requests <= rows);
      assert.ok(m.completed_requests >= count(DONE));
      assert.ok(m.dropped_unservable >= count(DROPPED_PREFILL) + count(DROPPED_DECODE));
      assert.ok(m.completed_requests + m.dropped_unservable + m.still_queued + m.still_running <= reqs.length);
      // Live work at the horizon is queued or running somewhere, in flight where it will complete.
      let live = 0;
      for (const inst of r.instances) live += inst.waitQueue.length + inst.running.length;
      assert.equal(m.still_queued + m.still_running, live + Math.max(0, pd.inTransfer()));
      for (const inst of r.instances) {
        assert.equal(
          r.inFlight[inst.index],
          inst.waitQueue.length + inst.running.length + pd.pendingPicks[inst.index]! + queuedArrivals(inst),
        );
      }
    }),
    { seed: FC_SEED, numRuns: 100 },
  );
});

/** Requests still between their Arrival and Queued events (the queueing delay) at the horizon. */
function queuedArrivals(inst: ClusterRun["instances"][number]): number {
  return inst.events.size - inst.pendingSteps;
}

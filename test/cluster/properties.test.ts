// Property test over random policy combinations and small workloads (docs/behavior.md
// "Cluster pipeline", "Output, in order").
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { run, simConfig } from "../helpers/sim.js";
import { makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import { renderMetricBlocks, renderTail } from "../../src/metrics/render.js";
import { requestRecords } from "../../src/metrics/collect.js";
import type { SimConfig } from "../../src/sim/simConfig.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import { DEFAULT_SLO_PARAMS } from "../../src/policy/sloTiers.js";
import { admissionPolicies } from "../../src/cluster/admission/admission.js";
import { routingPolicies } from "../../src/cluster/routing/routing.js";
import { scorers } from "../../src/cluster/scorers/scorer.js";
import { priorityPolicies } from "../../src/policy/priority.js";
import { schedulers } from "../../src/policy/scheduler.js";

// Policy names come from the registries, so a new built-in is covered without editing this test.
const SCORERS = scorers.listed();
const CLASSES = ["", "critical", "standard", "sheddable", "batch", "background"];
const PREFIXES = [[], Array.from({ length: 32 }, (_, i) => 70000 + i), Array.from({ length: 48 }, (_, i) => 80000 + i)];

const configArb = fc.record({
  numInstances: fc.integer({ min: 1, max: 4 }),
  admissionPolicy: fc.constantFrom("always-admit", ...admissionPolicies.listed()),
  tokenBucketCapacity: fc.integer({ min: 50, max: 2000 }),
  tokenBucketRefillRate: fc.integer({ min: 100, max: 200000 }),
  admissionLoadThreshold: fc.integer({ min: 0, max: 6 }),
  routingPolicy: fc.constantFrom(...routingPolicies.listed(), "weighted"),
  scorers: fc
    .shuffledSubarray(SCORERS, { minLength: 1 })
    .chain((names) =>
      fc.tuple(
        ...names.map((name) => fc.double({ min: 0.01, max: 50, noNaN: true }).map((weight) => ({ name, weight }))),
      ),
    ),
  sloCacheWeights: fc.tuple(
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.double({ min: 0, max: 1, noNaN: true }),
  ),
  priorityPolicy: fc.constantFrom(...priorityPolicies.listed()),
  scheduler: fc.constantFrom(...schedulers.listed()),
  priorityBridge: fc.constantFrom("none", "none", "hint", "floor"),
  snapshotRefreshInterval: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50000 })),
  admissionLatency: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
  routingLatency: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
  totalKvBlocks: fc.oneof(fc.integer({ min: 6, max: 40 }), fc.integer({ min: 40, max: 400 })),
  maxRunning: fc.integer({ min: 1, max: 8 }),
  longPrefillThreshold: fc.constantFrom(0, 0, 16, 64),
  preemptionPolicy: fc.constantFrom("tail", "slo-aware"),
  traced: fc.boolean(),
  counterfactualK: fc.integer({ min: 0, max: 5 }),
});

const workloadArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 20000 })),
    prefix: fc.integer({ min: 0, max: PREFIXES.length - 1 }),
    tail: fc.integer({ min: 0, max: 80 }),
    output: fc.integer({ min: 0, max: 40 }),
    sloClass: fc.constantFrom(...CLASSES),
    tenant: fc.constantFrom("", "t1", "t2"),
  }),
  { minLength: 1, maxLength: 25 },
);

type Cfg = typeof configArb extends fc.Arbitrary<infer T> ? T : never;
type Wl = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

function buildConfig(c: Cfg, admissionLatency = c.admissionLatency, routingLatency = c.routingLatency): SimConfig {
  return simConfig({
    horizon: 1e9,
    alpha: [200, 2, 100],
    beta: [1000, 3, 2],
    params: {
      tokenBucketCapacity: c.tokenBucketCapacity,
      tokenBucketRefillRate: c.tokenBucketRefillRate,
      admissionLoadThreshold: c.admissionLoadThreshold,
    },
    cluster: {
      numInstances: c.numInstances,
      admission: { policy: c.admissionPolicy, latency: admissionLatency },
      routing: {
        policy: c.routingPolicy,
        scorers: c.scorers,
        sloCacheWeights: c.sloCacheWeights,
        snapshotRefreshInterval: c.snapshotRefreshInterval,
        latency: routingLatency,
      },
    },
    policy: {
      priority: c.priorityPolicy,
      scheduler: c.scheduler,
      priorityBridge: c.priorityBridge,
      slo: DEFAULT_SLO_PARAMS,
      preemption: c.preemptionPolicy,
    },
    kv: { totalKvBlocks: c.totalKvBlocks },
    engine: { maxRunning: c.maxRunning, longPrefillThreshold: c.longPrefillThreshold },
    trace: { level: c.traced ? "decisions" : "none", counterfactualK: c.traced ? c.counterfactualK : 0 },
  });
}

function buildWorkload(w: Wl): WorkloadRequest[] {
  let t = 0;
  return w.map((x, i) => {
    t += x.gap;
    const prompt = [
      ...PREFIXES[x.prefix]!,
      ...Array.from({ length: x.tail }, (_, k) => 1 + ((i * 131 + k * 7) % 60000)),
    ];
    const out = Array.from({ length: x.output }, (_, k) => 90000 + k);
    return makeRequest(`request_${i}`, t, prompt, out, { sloClass: x.sloClass, tenantId: x.tenant });
  });
}

function stdoutOf(r: ClusterRun): string {
  return renderMetricBlocks(r.metrics) + renderTail(r.metrics, { printFairness: true, summarizeTrace: true });
}

test("random policy combinations: routing, conservation, in-flight, determinism", () => {
  fc.assert(
    fc.property(configArb, workloadArb, (c, w) => {
      const cfg = buildConfig(c);
      const reqs = buildWorkload(w);
      const routedTo = new Map<string, number>();
      const clocks: number[] = [];
      const r = run(cfg, reqs, {
        clusterObserver: {
          onRouted(req, instance) {
            assert.ok(!routedTo.has(req.id), `${req.id} routed twice`);
            assert.ok(Number.isInteger(instance) && instance >= 0 && instance < c.numInstances);
            assert.equal(req.instance, instance);
            routedTo.set(req.id, instance);
          },
          onClock(t) {
            clocks.push(t);
          },
        },
      });
      const m = r.metrics;
      const n = reqs.length;
      // Every routed request reached exactly one instance.
      assert.equal(routedTo.size, m.routed);
      for (let i = 0; i < c.numInstances; i++) {
        const mine = [...routedTo.values()].filter((x) => x === i).length;
        assert.equal(m.perInstanceRouted[i], mine);
        assert.equal(m.instances[i]!.injected_requests, mine, `instance_${i} injected = routed to it`);
      }
      for (const rec of requestRecords(r.ledger))
        assert.equal(rec.handled_by, `instance_${routedTo.get(rec.requestID)}`);
      // Conservation (no horizon cut): generated = injected + rejected.
      assert.equal(m.generated, n);
      assert.equal(m.cluster.injected_requests + m.anomalies.rejected, n);
      assert.equal(m.routed + m.anomalies.rejected, n);
      if (c.admissionPolicy === "reject-all") assert.equal(m.anomalies.rejected, n);
      if (c.admissionPolicy === "always-admit") assert.equal(m.anomalies.rejected, 0);
      if (c.admissionPolicy === "slo-gated") {
        for (const x of reqs)
          if (!["sheddable", "batch", "background"].includes(x.sloClass))
            assert.ok(routedTo.has(x.id), `${x.sloClass} never shed`);
      }
      // Everything finished: in-flight back to 0, nothing left in queues.
      assert.deepEqual(Array.from(r.inFlight), new Array(c.numInstances).fill(0));
      assert.equal(m.cluster.still_queued + m.cluster.still_running, 0);
      assert.equal(m.cluster.completed_requests + m.cluster.dropped_unservable, m.cluster.injected_requests);
      // With non-negative latencies the shared clock never goes backwards.
      for (let i = 1; i < clocks.length; i++) assert.ok(clocks[i]! >= clocks[i - 1]!, "clock monotone");
      // Trace bookkeeping.
      if (r.trace !== null) {
        assert.equal(r.trace.admissions.length, n);
        assert.equal(r.trace.routings.length, m.routed);
        assert.ok(
          r.trace.routings.every(
            (x) => x.regret >= 0 && x.candidates.length === Math.min(cfg.trace.counterfactualK, c.numInstances),
          ),
        );
        if (c.routingPolicy === "weighted" || c.routingPolicy === "least-loaded")
          assert.ok(r.trace.routings.every((x) => x.regret === 0));
      }
      // Determinism: a second run of the same configuration renders identical stdout.
      const again = run(buildConfig(c), reqs);
      assert.equal(stdoutOf(again), stdoutOf(r));
    }),
    { seed: FC_SEED, numRuns: 150 },
  );
});

test("negative admission/routing latencies are accepted and conserve requests", () => {
  fc.assert(
    fc.property(
      configArb,
      workloadArb,
      fc.integer({ min: -5000, max: 0 }),
      fc.integer({ min: -5000, max: 0 }),
      (c, w, la, lr) => {
        const cfg = buildConfig(c, la, lr);
        const reqs = buildWorkload(w);
        const r = run(cfg, reqs);
        assert.equal(r.metrics.cluster.injected_requests + r.metrics.anomalies.rejected, reqs.length);
        assert.deepEqual(Array.from(r.inFlight), new Array(c.numInstances).fill(0));
        assert.equal(stdoutOf(run(buildConfig(c, la, lr), reqs)), stdoutOf(r));
      },
    ),
    { seed: FC_SEED, numRuns: 40 },
  );
});

// Conservation and causality with the gateway queue over random gateway configurations
// (docs/gateway.md "Accounting"): every arrival ends in exactly one place.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { run, simConfig } from "../helpers/sim.js";
import { makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import { createDetector } from "../../src/gateway/detectors.js";
import { priorityMap } from "../../src/gateway/priorities.js";
import type { GatewayPlan } from "../../src/features/gateway/plan.js";
import { gateway } from "../../src/features/gateway/gateway.js";
import { controlPlaneOf } from "../../src/features/gateway/access.js";
import { bindFeature } from "../../src/features/registry.js";
import { renderMetricBlocks, renderTail } from "../../src/metrics/render.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";

const CLASSES = ["", "critical", "standard", "sheddable", "batch", "background"];

const gatewayArb = fc.record({
  numInstances: fc.integer({ min: 1, max: 3 }),
  detector: fc.constantFrom("never", "utilization", "concurrency"),
  queueDepthThreshold: fc.constantFrom(0.5, 1, 5),
  kvCacheUtilThreshold: fc.constantFrom(0.1, 0.8),
  maxConcurrency: fc.integer({ min: 1, max: 6 }),
  usageLimit: fc.constantFrom(1, 0.5, 0.2),
  roundRobin: fc.boolean(),
  byDeadline: fc.boolean(),
  maxDepth: fc.constantFrom(0, 1, 3, 8),
  perBand: fc.constantFrom(0, 1, 4),
  shedding: fc.boolean(),
  ttl: fc.constantFrom(0, 2000, 50000),
  tick: fc.constantFrom(1, 1000, 20000),
  eviction: fc.boolean(),
  budgets: fc.constantFrom(null, { t1: 0.25 }, { t1: 0, t2: 0.5 }),
  horizon: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 200000 })),
  admissionLatency: fc.constantFrom(0, 0, 300),
  routingLatency: fc.constantFrom(0, 0, 500),
  maxRunning: fc.integer({ min: 1, max: 6 }),
  totalKvBlocks: fc.constantFrom(12, 40, 400),
  // Client deadline after arrival (0: none): requests can time out in the queue or on an instance.
  timeout: fc.constantFrom(0, 0, 500, 3000, 20000),
});

const workloadArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })),
    input: fc.integer({ min: 1, max: 120 }),
    output: fc.integer({ min: 0, max: 60 }),
    sloClass: fc.constantFrom(...CLASSES),
    tenant: fc.constantFrom("", "t1", "t2"),
  }),
  { minLength: 1, maxLength: 30 },
);

type G = typeof gatewayArb extends fc.Arbitrary<infer T> ? T : never;
type W = typeof workloadArb extends fc.Arbitrary<infer T> ? T : never;

function plan(g: G): GatewayPlan {
  const priority = priorityMap();
  return {
    settings: {
      priority,
      detector: createDetector(g.detector, g),
      usageLimit: g.usageLimit,
      roundRobin: g.roundRobin,
      byDeadline: g.byDeadline,
      targets: new Map([["critical", 1000]]),
      maxDepth: g.maxDepth,
      perBand: g.perBand,
      shedding: g.shedding,
      ttl: g.ttl,
      tick: g.tick,
      eviction: g.eviction,
    },
    budgets: g.budgets === null ? null : new Map(Object.entries(g.budgets)),
    targets: { critical: { ttft_ms: 5, itl_ms: 0, e2e_ms: 0 } },
    priorities: {},
  };
}

function workload(w: W, timeout = 0): WorkloadRequest[] {
  let t = 0;
  return w.map((x, i) => {
    t += x.gap;
    const prompt = Array.from({ length: x.input }, (_, k) => 1 + ((i * 131 + k * 7) % 60000));
    const out = Array.from({ length: x.output }, (_, k) => 90000 + k);
    const r = makeRequest(`request_${i}`, t, prompt, out, { sloClass: x.sloClass, tenantId: x.tenant });
    if (timeout > 0) r.deadline = t + timeout;
    return r;
  });
}

function simulate(g: G, w: W, routed?: Map<number, number>): ClusterRun {
  const cfg = simConfig({
    horizon: g.horizon,
    alpha: [200, 2, 100],
    beta: [1000, 3, 2],
    cluster: {
      numInstances: g.numInstances,
      admission: { latency: g.admissionLatency },
      routing: { latency: g.routingLatency, policy: "least-loaded" },
    },
    kv: { totalKvBlocks: g.totalKvBlocks },
    engine: { maxRunning: g.maxRunning },
  });
  cfg.features = [bindFeature(gateway, { plan: plan(g), runningSlots: g.numInstances * g.maxRunning })];
  const hooks =
    routed === undefined
      ? {}
      : {
          clusterObserver: {
            onRouted: (r: { seq: number }, _i: number, t: number) => routed.set(r.seq, t),
            onClock: () => undefined,
          },
        };
  return run(cfg, workload(w, g.timeout), hooks);
}

const stdout = (r: ClusterRun): string =>
  renderMetricBlocks(r.metrics) + renderTail(r.metrics, { printFairness: false, summarizeTrace: false });

test("gateway conservation: injected + rejected + shed + expired + timed out + evicted + queued = arrivals; causality", () => {
  fc.assert(
    fc.property(gatewayArb, workloadArb, (g, w) => {
      const routedAt = new Map<number, number>();
      const r = simulate(g, w, routedAt);
      const m = r.metrics;
      const gw = m.gateway!;
      const cp = controlPlaneOf(r)!;
      let arrived = 0;
      for (const n of cp.arrivals.values()) arrived += n;
      const reqs = workload(w, g.timeout);
      if (g.horizon === Infinity) assert.equal(arrived, reqs.length, "every request arrives without a horizon");
      const accounted =
        m.anomalies.rejected +
        gw.rejected +
        gw.shed +
        gw.expired +
        gw.timedOut +
        gw.evicted +
        gw.depth +
        (m.anomalies.routingRejections ?? 0) +
        m.cluster.injected_requests;
      // With a horizon, requests can still be inside an admission or routing delay or on their way to an instance.
      if (g.horizon === Infinity) assert.equal(accounted, arrived, JSON.stringify(gw));
      else assert.ok(accounted <= arrived, `${accounted} > ${arrived}`);
      assert.equal(gw.tenantBudgetRejected <= m.anomalies.rejected, true);
      // Shed-by-tier collects admission rejections, shed victims, expiries and evictions.
      const tiers = gw.shedByTier.reduce((s, [, n]) => s + n, 0);
      assert.equal(tiers, m.anomalies.rejected + gw.shed + gw.expired + gw.evicted);
      // Dispatched requests were routed (or are still in the routing delay at the horizon).
      if (g.horizon === Infinity) assert.equal(gw.dispatched, m.routed + (m.anomalies.routingRejections ?? 0));
      // Causality: routing happens exactly the gateway wait after admission, never before arrival.
      const l = r.ledger;
      for (const [seq, wait] of cp.gateway!.waits) {
        assert.ok(wait >= 0);
        const arrival = reqs[seq]!.arrival;
        const at = routedAt.get(seq);
        if (at !== undefined) assert.equal(at, arrival + g.admissionLatency + wait + g.routingLatency);
        // No request leaves the queue at or after its client deadline.
        if (g.timeout > 0)
          assert.ok(
            arrival + g.admissionLatency + wait < arrival + g.timeout,
            `request ${seq} dispatched after its deadline`,
          );
        if (l.isCompleted(seq)) assert.ok(l.ttft[seq]! >= wait, `TTFT ${l.ttft[seq]} < gateway wait ${wait}`);
      }
      // Determinism.
      assert.equal(stdout(simulate(g, w)), stdout(r));
    }),
    { seed: FC_SEED, numRuns: 150 },
  );
});

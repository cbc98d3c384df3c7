// In-flight eviction on real instances: evicted requests leave their batch or queue with their KV
// blocks freed, get no completion record, and the instance keeps stepping.
import { test } from "node:test";
import assert from "node:assert/strict";
import { req, run, simConfig } from "../helpers/sim.js";
import { createDetector } from "../../src/gateway/detectors.js";
import { priorityMap } from "../../src/gateway/priorities.js";
import { requestRecords } from "../../src/metrics/collect.js";
import type { InstanceObserver } from "../../src/instance/instance.js";
import type { GatewayPlan } from "../../src/features/gateway/plan.js";
import { gateway } from "../../src/features/gateway/gateway.js";
import { bindFeature } from "../../src/features/registry.js";

test("in-flight eviction: sheddable requests make room for waiting critical ones", () => {
  const cfg = simConfig({ alpha: [100, 1, 100], beta: [1000, 3, 2], kv: { totalKvBlocks: 200 } });
  const plan: GatewayPlan = {
    settings: {
      priority: priorityMap(),
      detector: createDetector("concurrency", { queueDepthThreshold: 5, kvCacheUtilThreshold: 0.8, maxConcurrency: 3 }),
      usageLimit: 1,
      roundRobin: false,
      byDeadline: false,
      targets: new Map(),
      maxDepth: 0,
      perBand: 0,
      shedding: false,
      ttl: 0,
      tick: 500,
      eviction: true,
    },
    budgets: null,
    targets: null,
    priorities: {},
  };
  cfg.features = [bindFeature(gateway, { plan, runningSlots: cfg.cluster.numInstances * cfg.engine.maxRunning })];
  const reqs = [
    ...Array.from({ length: 3 }, (_, i) => req(`s${i}`, i * 10, 64, 300, { sloClass: "sheddable" })),
    ...Array.from({ length: 3 }, (_, i) => req(`c${i}`, 50000 + i * 10, 64, 20, { sloClass: "critical" })),
  ];
  let steps = 0;
  const observer: InstanceObserver = {
    afterEvent() {},
    afterStep(inst) {
      steps++;
      // Blocks in use never exceed what the running requests hold.
      let held = 0;
      for (const r of inst.running) held += r.nBlocks;
      for (const r of inst.waitQueue.toArray()) held += r.nBlocks;
      assert.ok(inst.kv.totalBlocks - inst.kv.freeBlocks() >= 0);
      assert.ok(held <= inst.kv.totalBlocks);
    },
  };
  const r = run(cfg, reqs, { instanceObserver: observer });
  const g = r.metrics.gateway!;
  assert.equal(g.evicted, 3, "every sheddable request is evicted for a waiting critical one");
  assert.deepEqual(g.shedByTier, [["sheddable", 3]]);
  const recs = requestRecords(r.ledger);
  assert.deepEqual(recs.map((x) => x.requestID).sort(), ["c0", "c1", "c2"], "evicted requests leave the records");
  assert.equal(r.metrics.cluster.completed_requests, 3);
  assert.equal(r.metrics.cluster.still_running + r.metrics.cluster.still_queued, 0);
  assert.equal(
    r.instances[0]!.kv.totalBlocks - r.instances[0]!.kv.freeBlocks(),
    0,
    "every KV block is free at the end",
  );
  assert.equal(r.inFlight[0], 0);
  assert.ok(steps > 0);
  // Without an observer the instance keeps plain decodes out of its step visits (the decode
  // cohort); eviction brings them back first, so the results are the same.
  const fast = run(cfg, reqs);
  assert.deepEqual(requestRecords(fast.ledger), recs);
  assert.deepEqual(fast.metrics.cluster, r.metrics.cluster);
  assert.equal(fast.instances[0]!.kv.totalBlocks - fast.instances[0]!.kv.freeBlocks(), 0);
});

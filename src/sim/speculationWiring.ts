// Speculation in a cluster run: one InstanceSpeculation per speculating instance, and the run's
// metrics from all of them (docs/speculative.md).

import { deriveStreamSeed, Rng } from "../engine/rng.js";
import type { KvCache } from "../kv/kvCache.js";
import type { LatencyModel } from "../latency/model.js";
import type { RequestLedger } from "../core/ledger.js";
import { InstanceSpeculation } from "../speculative/instanceSpec.js";
import { speculativeMetrics, type SpeculativeMetrics } from "../metrics/speculative.js";
import { proposalCost } from "../speculative/proposalCost.js";
import type { SpeculationPlan } from "../speculative/plan.js";
import { SpecStats } from "../speculative/stats.js";

/** Instance k's speculation: acceptance from its own stream `speculative/<k>` of the run's seed. */
export function instanceSpeculation(
  plan: SpeculationPlan,
  k: number,
  kv: KvCache,
  target: LatencyModel,
): InstanceSpeculation {
  const { config } = plan;
  const rng = new Rng(deriveStreamSeed(plan.seed, `speculative/${k}`));
  const cost = proposalCost({
    method: config.method,
    target,
    targetLayers: plan.targetLayers,
    draft: plan.draft === null ? null : plan.draft(),
  });
  return new InstanceSpeculation(
    { k: config.k, disableByBatchSize: config.disableByBatchSize, table: plan.table },
    kv,
    rng,
    cost,
  );
}

/** The run's speculative metrics over its instances (those without speculation add nothing). */
export function runSpeculativeMetrics(
  plan: SpeculationPlan,
  instances: readonly { readonly spec: InstanceSpeculation | null }[],
  users: RequestLedger,
): SpeculativeMetrics {
  const total = new SpecStats(plan.config.k);
  for (const inst of instances) if (inst.spec !== null) total.addFrom(inst.spec.stats);
  return speculativeMetrics(plan.config, total, users);
}

// Speculative decoding's part of every instance (docs/speculative.md): each instance that decodes
// gets its own proposer cost and acceptance stream, and the run's metrics sum them all.

import type { ClusterExtension, ExtensionDescriptor, InstanceBuild } from "../../cluster/extension.js";
import type { InstanceConfig } from "../../instance/instanceConfig.js";
import type { RequestLedger } from "../../core/ledger.js";
import { deriveStreamSeed, Rng } from "../../engine/rng.js";
import { InstanceSpeculation } from "../../speculative/instanceSpec.js";
import { proposalCost } from "../../speculative/proposalCost.js";
import type { SpeculationPlan } from "../../speculative/plan.js";
import { SpecStats } from "../../speculative/stats.js";
import { speculativeMetrics, type SpeculativeMetrics } from "../../metrics/speculative.js";

export const SPECULATION_EXTENSION: ExtensionDescriptor = {
  name: "speculative-decoding",
  ranks: null,
  capabilities: ["instances"],
};

export class SpeculationExtension implements ClusterExtension {
  readonly descriptor = SPECULATION_EXTENSION;
  /** Every speculating instance's part, in the order instances were built. */
  private readonly parts: InstanceSpeculation[] = [];

  constructor(private readonly plan: SpeculationPlan) {}

  attach(): void {}

  /** Instance k speculates when it decodes, drawing acceptance from stream `speculative/<k>` of the run's seed. */
  instanceConfig(k: number, build: InstanceBuild): Partial<InstanceConfig> {
    if (!build.decodes) return {};
    const { config, seed, table, targetLayers, draft } = this.plan;
    const rng = new Rng(deriveStreamSeed(seed, `speculative/${k}`));
    const cost = proposalCost({
      method: config.method,
      target: build.latency,
      targetLayers,
      draft: draft === null ? null : draft(),
    });
    const part = new InstanceSpeculation(
      { k: config.k, disableByBatchSize: config.disableByBatchSize, table },
      build.kv,
      rng,
      cost,
    );
    this.parts.push(part);
    return { speculation: part };
  }

  /** The run's speculative metrics over its speculating instances. */
  results(users: RequestLedger): SpeculativeMetrics {
    const total = new SpecStats(this.plan.config.k);
    for (const part of this.parts) total.addFrom(part.stats);
    return speculativeMetrics(this.plan.config, total, users);
  }
}

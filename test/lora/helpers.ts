// Shared LoRA test configurations.
import type { LoraConfig } from "../../src/lora/resolve.js";
import type { LoraTier } from "../../src/lora/config.js";
import { bindFeature, type ActiveFeature } from "../../src/features/registry.js";
import { lora } from "../../src/features/lora/lora.js";

/** Adapters id → rank; loads take max(1, ⌈base + ⌈rank × footprint / bandwidth⌉⌉) ticks. */
export function loraConfig(
  adapters: Record<string, number>,
  o: { capacity?: number; base?: number; footprint?: number; bandwidth?: number; tiers?: LoraTier[] } = {},
): LoraConfig {
  const map = new Map(Object.entries(adapters).map(([id, rank]) => [id, { id, rank, baseModel: "" }]));
  return {
    capacity: o.capacity ?? 1,
    loadBaseLatencyUs: o.base ?? 100,
    loadBandwidthBytesUs: o.bandwidth ?? 1,
    footprintBytesPerRank: o.footprint ?? 1,
    tiers: o.tiers ?? [],
    adapters: map,
    maxRank: Math.max(...[...map.values()].map((a) => a.rank)),
  };
}

/** LoRA on with `config`, as a SimConfig's feature list holds it. */
export function withLora(config: LoraConfig): ActiveFeature {
  return bindFeature(lora, { registry: config.adapters, active: config, reservedBytes: 0 });
}

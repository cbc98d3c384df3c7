// Speculation plans for tests, built the way the feature builds them.
import { AcceptanceTable } from "../../src/speculative/acceptance.js";
import { decodeSpeculativeConfig } from "../../src/speculative/config.js";
import type { SpeculationPlan } from "../../src/speculative/plan.js";
import type { LatencyModel } from "../../src/latency/model.js";
import { bindFeature, type ActiveFeature } from "../../src/features/registry.js";
import { speculativeDecoding } from "../../src/features/speculative/speculative.js";

export function specPlan(
  keys: Record<string, unknown>,
  extra: { layers?: number; draft?: () => LatencyModel; seed?: bigint } = {},
): SpeculationPlan {
  const config = decodeSpeculativeConfig(keys);
  return {
    config,
    table: new AcceptanceTable(config),
    targetLayers: extra.layers ?? 32,
    draft: extra.draft ?? null,
    seed: extra.seed ?? 42n,
  };
}

/** Speculative decoding on with `plan`, as a SimConfig's feature list holds it. */
export function speculating(plan: SpeculationPlan): ActiveFeature {
  return bindFeature(speculativeDecoding, plan);
}

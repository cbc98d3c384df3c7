import { bundleParamValues, loadPolicyBundle } from "../config/policyBundle.js";
import { mapToListText } from "../config/flagLists.js";
import type { RunOptions } from "../config/runOptions.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";
import type { Logger } from "../util/log.js";
import { applyGatewayBundle } from "./gatewayConfig.js";

/**
 * Stage: the policy bundle's values for options not given explicitly (step 6). Policy parameters
 * come from each descriptor's bundle key; returns the bundle's scorers.
 */
export function applyBundle(o: RunOptions, explicit: ReadonlySet<string>, log: Logger): ScorerSpec[] {
  if (o.policyConfig === "") return [];
  const b = loadPolicyBundle(o.policyConfig);
  const apply = <K extends keyof RunOptions>(k: K, v: RunOptions[K] | undefined, set: boolean): void => {
    if (set && v !== undefined && !explicit.has(k)) o[k] = v;
  };
  apply("admissionPolicy", b.admission?.policy, !!b.admission?.policy);
  const params = o as Record<string, unknown>;
  for (const [k, v] of bundleParamValues(b)) if (!explicit.has(k)) params[k] = v;
  apply("routingPolicy", b.routing?.policy, !!b.routing?.policy);
  apply("priorityPolicy", b.priority?.policy, !!b.priority?.policy);
  apply("scheduler", b.scheduler, !!b.scheduler);
  if (b.routing?.slo_cache_weights) apply("sloCacheWeights", mapToListText(b.routing.slo_cache_weights), true);
  const bs = b.priority?.base_scores;
  if (bs) {
    apply("sloBaseCritical", bs["critical"], bs["critical"] !== undefined);
    apply("sloBaseStandard", bs["standard"], bs["standard"] !== undefined);
    apply("sloBaseSheddable", bs["sheddable"], bs["sheddable"] !== undefined);
  }
  apply("sloAgeWeight", b.priority?.age_weight, b.priority?.age_weight !== undefined);
  const ut = b.priority?.urgency_thresholds_us;
  if (ut) {
    apply("sloThresholdCritical", ut["critical"], ut["critical"] !== undefined);
    apply("sloThresholdStandard", ut["standard"], ut["standard"] !== undefined);
    apply("sloThresholdSheddable", ut["sheddable"], ut["sheddable"] !== undefined);
  }
  apply("priorityBridge", b.priority?.bridge, !!b.priority?.bridge);
  if (b.slo_prefill_thresholds) apply("sloPrefillThresholds", mapToListText(b.slo_prefill_thresholds), true);
  const preemption = typeof b.preemption === "string" ? b.preemption : b.preemption?.policy;
  apply("preemptionPolicy", preemption, !!preemption);
  applyGatewayBundle(b, o, explicit);
  if (b.speculative_config !== undefined) apply("speculativeConfig", JSON.stringify(b.speculative_config), true);
  const bundleScorers = b.routing?.scorers ?? [];
  log.info(
    `Policy config: admission=${o.admissionPolicy}, routing=${o.routingPolicy}, priority=${o.priorityPolicy}, scheduler=${o.scheduler}`,
  );
  return bundleScorers;
}

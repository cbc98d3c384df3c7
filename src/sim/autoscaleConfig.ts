import { loadPolicyBundle } from "../config/policyBundle.js";
import type { RunOptions } from "../config/runOptions.js";
import { autoscaleSettings } from "../autoscale/settings.js";
import type { AutoscaleRun } from "./simConfig.js";

/**
 * Stage: node pools, instance lifecycle and autoscaler from the bundle and
 * --model-autoscaler-interval-us (docs/autoscaling.md "Configuration"); undefined when the run
 * has none of them, so it runs exactly as without autoscaling.
 */
export function resolveAutoscale(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  hardware: string,
  tp: number,
): AutoscaleRun | undefined {
  const bundle = o.policyConfig === "" ? {} : loadPolicyBundle(o.policyConfig);
  const flag = explicit.has("modelAutoscalerIntervalUs") ? o.modelAutoscalerIntervalUs : undefined;
  const settings = autoscaleSettings(bundle, flag);
  if (settings === null) return undefined;
  return {
    settings,
    seed: BigInt.asIntN(64, BigInt(o.seed)),
    hardware: hardware === "" ? "gpu" : hardware,
    tp: Math.max(tp, 1),
  };
}

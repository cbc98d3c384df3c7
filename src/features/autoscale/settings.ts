// The autoscale feature's settings: the bundle sections checked (src/autoscale/settings.ts) and what
// the controller needs of the deployment, derived once when the run is configured.

import { z } from "zod";
import { anyNumber } from "../../util/policyRegistry.js";
import {
  AutoscalerBundle,
  LifecycleBundle,
  NodePoolBundle,
  autoscaleSettings,
  type AutoscaleSettings,
} from "../../autoscale/settings.js";
import type { ControllerContext } from "../../autoscale/controller.js";
import type { FeatureContext } from "../feature.js";

/** Its options: the flag, and the three bundle sections (set only by the policy bundle). */
export const autoscaleParams = z.object({
  /** Autoscaler tick interval in ticks; when given it replaces the bundle's autoscaler.interval_us (0 = off). */
  modelAutoscalerIntervalUs: anyNumber.default(0),
  nodePools: z.array(NodePoolBundle).optional(),
  instanceLifecycle: LifecycleBundle.optional(),
  autoscaler: AutoscalerBundle.optional(),
});

export type AutoscaleParams = z.infer<typeof autoscaleParams>;

/** What the controller of one run is built from (its instance builder, log and trace come at start). */
export interface AutoscaleRun {
  readonly settings: AutoscaleSettings;
  readonly context: Omit<ControllerContext, "build" | "log" | "trace">;
}

/**
 * The run's autoscaling, or null when neither the bundle nor the flag asks for node pools, lifecycle
 * or an autoscaler (the run is then exactly a fixed fleet). The flag, given, replaces the bundle's interval.
 */
export function autoscaleRun(p: AutoscaleParams, { explicit, deployment: d }: FeatureContext): AutoscaleRun | null {
  const flag = explicit.has("modelAutoscalerIntervalUs") ? p.modelAutoscalerIntervalUs : undefined;
  const bundle = { node_pools: p.nodePools, instance_lifecycle: p.instanceLifecycle, autoscaler: p.autoscaler };
  const settings = autoscaleSettings(bundle, flag);
  if (settings === null) return null;
  return {
    settings,
    context: {
      tp: Math.max(d.tp, 1),
      hardware: d.hardware === "" ? "gpu" : d.hardware,
      model: d.model !== "" ? d.model : "default",
      seed: d.seed,
      horizon: d.horizon,
      blockSize: d.blockSize,
      replicaCapacityTokens: d.totalKvBlocks * d.blockSize,
    },
  };
}

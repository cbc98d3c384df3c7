// The features of a run that constrain one another (docs/architecture.md "Cluster extensions"):
// which are active, in the order their refusals are checked.

import { refuseIncompatible } from "../cluster/compatibility.js";
import type { FeatureDescriptor } from "../cluster/extension.js";
import { CONTROL_PLANE_EXTENSION } from "../gateway/controlPlane.js";
import { PD_EXTENSION } from "../pd/descriptor.js";
import type { GatewayPlan } from "./gatewayConfig.js";

/** Client deadlines (--timeout, a workload-spec client's timeout key). */
const DEADLINES: FeatureDescriptor = { name: "deadlines" };

export interface RunFeatures {
  pd: boolean;
  deadlines: boolean;
  gateway: GatewayPlan | undefined;
}

/**
 * Refuses a run whose features cannot run together, with the feature's own message: the registered
 * features' declarations first (LoRA's refusal of PD comes before PD's own), then the stages'.
 */
export function refuseIncompatibleFeatures(f: RunFeatures, registered: readonly FeatureDescriptor[] = []): void {
  const active: FeatureDescriptor[] = [];
  if (f.pd) active.push(PD_EXTENSION);
  if (f.deadlines) active.push(DEADLINES);
  // Goodput counting alone constrains nothing; the queue and tenant budgets do.
  const g = f.gateway;
  if (g !== undefined && (g.settings !== null || g.budgets !== null)) active.push(CONTROL_PLANE_EXTENSION);
  refuseIncompatible([...registered, ...active]);
}

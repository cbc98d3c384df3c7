// The features of a run that constrain one another (docs/architecture.md "Cluster extensions"):
// which are active, in the order their refusals are checked.

import { refuseIncompatible } from "../cluster/compatibility.js";
import type { FeatureDescriptor } from "../cluster/extension.js";
import type { ActiveFeature } from "../features/registry.js";

/** Client deadlines (--timeout, a workload-spec client's timeout key). */
const DEADLINES: FeatureDescriptor = { name: "deadlines" };

export interface RunFeatures {
  deadlines: boolean;
}

/**
 * Refuses a run whose features cannot run together, with the feature's own message: the registered
 * features' declarations in registration order (LoRA's refusal of PD comes before PD's own), then
 * the deadlines stage's.
 * An inert feature (the gateway counting goodput only) is on but constrains nothing.
 */
export function refuseIncompatibleFeatures(f: RunFeatures, registered: readonly ActiveFeature[] = []): void {
  const active: FeatureDescriptor[] = registered.filter((r) => !r.inert);
  if (f.deadlines) active.push(DEADLINES);
  refuseIncompatible(active);
}

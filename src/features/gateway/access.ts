// The control plane of a finished run, for the outputs that show what it did (per-request gateway
// delays in the results file, tests).

import { ControlPlane } from "../../gateway/controlPlane.js";
import type { StartedFeatures } from "../feature.js";
import { featureRunOf } from "../registry.js";
import { gateway } from "./gateway.js";

/** The run's control plane; null when the run used no gateway feature. */
export function controlPlaneOf(run: StartedFeatures): ControlPlane | null {
  const extension = featureRunOf(run, gateway.name)?.extension;
  return extension instanceof ControlPlane ? extension : null;
}

// The autoscaler of a finished run, for the outputs that show what it did (the run report, tests).

import { AutoscaleController } from "../../autoscale/controller.js";
import type { StartedFeatures } from "../feature.js";
import { featureRunOf } from "../registry.js";
import { autoscale } from "./autoscale.js";

/** The run's autoscaler; null when the run had no node pools, lifecycle or autoscaler. */
export function autoscalerOf(run: StartedFeatures): AutoscaleController | null {
  const extension = featureRunOf(run, autoscale.name)?.extension;
  return extension instanceof AutoscaleController ? extension : null;
}

// The autoscaler of a finished run, for the outputs that show what it did (the run report, tests).

import { AutoscaleController } from "../../autoscale/controller.js";
import type { StartedFeatures } from "../feature.js";
import { autoscale } from "./autoscale.js";

/** The run's autoscaler; null when the run had no node pools, lifecycle or autoscaler. */
export function autoscalerOf(run: StartedFeatures): AutoscaleController | null {
  const started = run.features.find((f) => f.feature.name === autoscale.name);
  return started !== undefined && started.run.extension instanceof AutoscaleController ? started.run.extension : null;
}

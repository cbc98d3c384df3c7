// The PD flow of a finished run, for the outputs and tests that read its bookkeeping.

import { PdController } from "../../pd/controller.js";
import type { StartedFeatures } from "../feature.js";
import { featureRunOf } from "../registry.js";
import { pd } from "./pd.js";

/** The run's PD controller (its topology, parents and counters); null when the run was co-located. */
export function pdOf(run: StartedFeatures): PdController | null {
  const extension = featureRunOf(run, pd.name)?.extension;
  return extension instanceof PdController ? extension : null;
}

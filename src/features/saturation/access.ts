// The detectors' labels and trace of a finished run (the --saturation-report file, `blis saturation`).

import type { SaturationAnalysis } from "../../saturation/analyze.js";
import type { StartedFeatures } from "../feature.js";
import { featureRunOf } from "../registry.js";
import { SaturationLabels, saturationDetectors } from "./saturation.js";

/** The run's saturation analysis; null when no detector was selected. */
export function saturationOf(run: StartedFeatures): SaturationAnalysis | null {
  const started = featureRunOf(run, saturationDetectors.name);
  return started instanceof SaturationLabels ? started.analysis : null;
}

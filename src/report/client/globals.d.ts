// What the page provides around this script: Chart.js's browser build (inlined before it) defines
// the global Chart, and the script publishes its progress on window for the report tests.

import type { Chart as ChartClass } from "chart.js";
import type { ReportState } from "./state.js";
import type { RefLinesOptions } from "./plugins.js";

declare global {
  const Chart: typeof ChartClass;
  interface Window {
    blisReport: ReportState;
  }
}

declare module "chart.js" {
  // Chart.js honours skipNull per dataset too (gaps in grouped bars close up); its types list it
  // as a chart option only.
  interface BarControllerDatasetOptions {
    skipNull: boolean;
  }
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merging requires chart.js's type parameter name
  interface PluginOptionsByType<TType extends ChartType> {
    blisRefLines: RefLinesOptions;
  }
}

import type { Chart } from "chart.js";

/** Published as window.blisReport: the report tests wait until every chart is drawn or failed. */
export interface ReportState {
  /** Charts described in the page. */
  expected: number;
  rendered: number;
  /** Ids of the charts that could not be drawn. */
  failed: string[];
  charts: Chart[];
}

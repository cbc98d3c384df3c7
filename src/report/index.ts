// HTML reports of runs and sweeps (self-contained pages with embedded charts).

export {
  RUN_REPORT_FORMAT,
  runReportData,
  checkRunReportData,
  type RunReportData,
  type RunRequests,
} from "./runData.js";
export { renderRunReport, writeRunReport, reportDataPath } from "./runReport.js";
export {
  SWEEP_REPORT_FORMAT,
  sweepReportData,
  sweepDataFromSummary,
  isSweepReportData,
  type SweepReportData,
} from "./sweepData.js";
export { renderSweepReport, writeSweepReport } from "./sweepReport.js";
export { paretoCells } from "./sweepPareto.js";
export { loadPlanWithReport, splitReportKey, DEFAULT_PARETO, type SweepReportOptions } from "./planOptions.js";
export { rebuildReport } from "./rebuild.js";

// Sweep tables (examples/experiments/README.md "Tables"): the public entry point. reportBuild assembles the report from
// the finished runs; reportRatios, reportMonotonic and reportChecks compute its tables;
// reportTypes holds their shapes.

export type {
  CheckResult,
  ConservationRow,
  DeterminismRow,
  FailureRow,
  MonotonicResult,
  MonotonicRow,
  PerSeedRow,
  RatioRow,
  SummaryRow,
  SweepReport,
} from "./reportTypes.js";
export { buildReport, fatalFailedRuns, indexRecords, sweepExitStatus, sweepFailureLine } from "./reportBuild.js";
export { verdict } from "./reportRatios.js";
export { conservationRow, determinismRow, firstDifference } from "./reportChecks.js";

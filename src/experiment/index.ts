// Public API of the experiment / sweep feature (README.md "Sweeps: `blis sweep`").

export { PlanError } from "./errors.js";
export {
  DEFAULT_SEEDS,
  DEFAULT_TIMEOUT_S,
  VARIANT_AXIS,
  loadPlan,
  parsePlan,
  planFromCells,
  planHashes,
  type CellSpec,
  type CellsPlanOptions,
  type LoadPlanOptions,
  type MonotonicDef,
  type ParsePlanOptions,
  type RatioDef,
  type Selector,
  type SweepAxis,
  type SweepChecks,
  type SweepConfig,
  type SweepPlan,
} from "./plan.js";
export { DEFAULT_METRICS, extractMetric, fixedMetricNames, metricProblem } from "./metrics.js";
export { SweepPool, defaultJobs, type RunContext, type RunExecutor, type RunOutcome } from "./pool.js";
export { runSweep, runCells, type SweepOptions, type SweepResult } from "./sweep.js";
export {
  buildReport,
  sweepExitStatus,
  sweepFailureLine,
  verdict,
  type SweepReport,
  type CheckResult,
} from "./report.js";
export { renderReport, renderText, renderMarkdown, renderCsv, renderJson, type OutputFormat } from "./render.js";
export type { RunRecord } from "./store.js";
export type { ProgressMode } from "./progress.js";

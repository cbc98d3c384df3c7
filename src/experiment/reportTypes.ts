// The tables of a sweep (examples/experiments/README.md "Tables") as data: what buildReport returns and the renderers,
// summary.json and the HTML report read.

export type CheckResult = "PASS" | "FAIL" | "N/A";

export interface PerSeedRow {
  config: string;
  seed: number;
  status: string;
  values: Record<string, number | null>;
}

export interface SummaryRow {
  config: string;
  metric: string;
  mean: number | null;
  min: number | null;
  max: number | null;
  n_valid: number;
  n: number;
}

export interface RatioRow {
  ratio: string;
  metric: string;
  numerator: string;
  denominator: string;
  /** `baseline_zero` marks a seed whose denominator is 0: it has no ratio. */
  per_seed: { seed: number; value: number | null; baseline_zero?: true }[];
  mean: number | null;
  min: number | null;
  max: number | null;
  /** Seeds with ratio > 1 / valid seeds, e.g. `3/3`. */
  above_1: string;
  below_1: string;
  verdict: string;
}

export interface MonotonicRow {
  check: string;
  group: string;
  series: string;
  points: { axis_value: string; value: number | null }[];
  result: CheckResult;
  first_inversion: string;
}

export interface MonotonicResult {
  check: string;
  axis: string;
  metric: string;
  direction: string;
  where: Record<string, string>;
  result: CheckResult;
  rows: MonotonicRow[];
}

export interface ConservationRow {
  config: string;
  seed: number;
  status: string;
  generated: number | null;
  injected: number | null;
  completed: number | null;
  still_queued: number | null;
  still_running: number | null;
  dropped_unservable: number | null;
  rejected: number | null;
  /** injected == completed + queued + running + dropped for every instance and the cluster. */
  blocks: CheckResult;
  /** Σ instance injected == cluster injected (multi-instance runs). */
  instance_sum: CheckResult;
  /** injected + rejected == generated (only when every request arrived before the horizon). */
  pipeline: CheckResult;
  result: CheckResult;
  detail: string;
}

export interface DeterminismRow {
  config: string;
  seed: number;
  result: CheckResult;
  detail: string;
}

export interface FailureRow {
  config: string;
  seed: number;
  run: number;
  status: string;
  error: string;
}

export interface SweepReport {
  name: string;
  seeds: number[];
  metrics: string[];
  axes: { name: string; values: string[] }[];
  configs: string[];
  runs: { expected: number; finished: number; ok: number; failed: number; missing: number };
  per_seed: PerSeedRow[];
  summary: SummaryRow[];
  ratios: RatioRow[];
  monotonic: MonotonicResult[];
  conservation: { result: CheckResult; rows: ConservationRow[] } | null;
  determinism: { result: CheckResult; rows: DeterminismRow[] } | null;
  failures: FailureRow[];
  warnings: string[];
  checks: { check: string; result: CheckResult }[];
  /** 0 when every requested check passed (failed runs aside: see `sweepExitStatus`). */
  exit_status: 0 | 1;
  /** Present (true) when the plan accepts failed runs (`allow_failures: true`). */
  allow_failures?: boolean;
}

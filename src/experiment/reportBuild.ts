// Tables of a sweep (examples/experiments/README.md "Tables"), computed from the set of finished runs only: rows follow
// configuration order, then seed order, never finish order, so an interrupted-and-resumed sweep
// yields the same tables as an uninterrupted one.

import type { SweepPlan } from "./planTypes.js";
import { runKey, type RunRecord } from "./store.js";
import { conservationSection, determinismSection } from "./reportChecks.js";
import { monotonicResult } from "./reportMonotonic.js";
import { ratioRows } from "./reportRatios.js";
import type { CheckResult, FailureRow, PerSeedRow, SummaryRow, SweepReport } from "./reportTypes.js";
import { mean, RunValues } from "./reportValues.js";

/** The latest record per (config, seed, rep), restricted to the plan's runs. */
export function indexRecords(records: readonly RunRecord[]): Map<string, RunRecord> {
  const m = new Map<string, RunRecord>();
  for (const r of records) m.set(runKey(r.config, r.seed, r.rep), r);
  return m;
}

export function buildReport(plan: SweepPlan, records: ReadonlyMap<string, RunRecord>): SweepReport {
  const reps = plan.checks.determinism ? [0, 1] : [0];
  const values = new RunValues(records);
  const { finished, ok, failures } = runCounts(plan, values, reps);
  const expected = plan.configs.length * plan.seeds.length * reps.length;
  const perSeed = perSeedRows(plan, values);
  const summary = summaryRows(plan, values);
  const ratios = ratioRows(plan, values);
  const monotonic = plan.checks.monotonic.map((def) => monotonicResult(plan, values, def));
  const conservation = plan.checks.conservation ? conservationSection(plan, values) : null;
  const determinism = plan.checks.determinism ? determinismSection(plan, values) : null;

  const checks: { check: string; result: CheckResult }[] = [];
  if (conservation !== null) checks.push({ check: "conservation", result: conservation.result });
  if (determinism !== null) checks.push({ check: "determinism", result: determinism.result });
  for (const m of monotonic) checks.push({ check: `monotonic: ${m.check}`, result: m.result });

  return {
    name: plan.name,
    seeds: plan.seeds,
    metrics: plan.metrics,
    axes: plan.axes.map((a) => ({ name: a.name, values: a.labels })),
    configs: plan.configs.map((c) => c.label),
    runs: { expected, finished, ok, failed: finished - ok, missing: expected - finished },
    per_seed: perSeed,
    summary,
    ratios,
    monotonic,
    conservation,
    determinism,
    failures,
    warnings: plan.warnings,
    checks,
    exit_status: checks.some((c) => c.result === "FAIL") ? 1 : 0,
    ...(plan.allowFailures ? { allow_failures: true } : {}),
  };
}

/** Failed runs that make the sweep fail: all of them, unless the plan allows failures. */
export function fatalFailedRuns(r: SweepReport): number {
  return r.allow_failures === true ? 0 : r.runs.failed;
}

/** The sweep's exit status: 1 when a check failed or a run failed (unless allowed), else 0. */
export function sweepExitStatus(r: SweepReport): 0 | 1 {
  return r.exit_status === 1 || fatalFailedRuns(r) > 0 ? 1 : 0;
}

/** One line on what made the sweep fail, or null when it did not. */
export function sweepFailureLine(r: SweepReport): string | null {
  const n = fatalFailedRuns(r);
  const runs =
    n > 0
      ? `${n} of ${r.runs.finished} runs failed (see the failed-runs table; allow_failures: true accepts them)`
      : "";
  if (r.exit_status === 1) return n > 0 ? `a check failed and ${runs}` : "a check failed (see the Checks table)";
  return n > 0 ? runs : null;
}

/** Finished and ok runs, and the failed ones in config, seed, repetition order. */
function runCounts(
  plan: SweepPlan,
  values: RunValues,
  reps: number[],
): { finished: number; ok: number; failures: FailureRow[] } {
  let finished = 0;
  let ok = 0;
  const failures: FailureRow[] = [];
  for (const c of plan.configs) {
    for (const seed of plan.seeds) {
      for (const rep of reps) {
        const r = values.record(c, seed, rep);
        if (r === undefined) continue;
        finished++;
        if (r.status === "ok") ok++;
        else failures.push({ config: c.label, seed, run: rep + 1, status: r.status, error: r.error });
      }
    }
  }
  return { finished, ok, failures };
}

/** Table 1: one row per (configuration, seed). */
function perSeedRows(plan: SweepPlan, values: RunValues): PerSeedRow[] {
  const perSeed: PerSeedRow[] = [];
  for (const c of plan.configs) {
    for (const seed of plan.seeds) {
      const r = values.record(c, seed);
      const row: PerSeedRow = { config: c.label, seed, status: r?.status ?? "missing", values: {} };
      for (const m of plan.metrics) row.values[m] = values.value(c, seed, m);
      perSeed.push(row);
    }
  }
  return perSeed;
}

/** Table 2: per configuration and metric, the mean, min and max over valid seeds. */
function summaryRows(plan: SweepPlan, values: RunValues): SummaryRow[] {
  const summary: SummaryRow[] = [];
  for (const c of plan.configs) {
    for (const m of plan.metrics) {
      const vs = values.validValues(c, plan.seeds, m);
      summary.push({
        config: c.label,
        metric: m,
        mean: vs.length > 0 ? mean(vs) : null,
        min: vs.length > 0 ? Math.min(...vs) : null,
        max: vs.length > 0 ? Math.max(...vs) : null,
        n_valid: vs.length,
        n: plan.seeds.length,
      });
    }
  }
  return summary;
}

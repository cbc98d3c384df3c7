// Tables of a sweep (workload.md §8.4), computed from the set of finished runs only: rows follow
// configuration order, then seed order, never finish order, so an interrupted-and-resumed sweep
// yields the same tables as an uninterrupted one.

import type { SimulationMetrics } from "../metrics/collect.js";
import { extractMetric } from "./metrics.js";
import { resolveRelative, matching, pairs, type SelectorContext, type SweepConfig, type SweepPlan } from "./plan.js";
import { runKey, type RunRecord } from "./store.js";
import { fmtNum } from "./format.js";

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
  per_seed: { seed: number; value: number | null }[];
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
  exit_status: 0 | 1;
}

/** The latest record per (config, seed, rep), restricted to the plan's runs. */
export function indexRecords(records: readonly RunRecord[]): Map<string, RunRecord> {
  const m = new Map<string, RunRecord>();
  for (const r of records) m.set(runKey(r.config, r.seed, r.rep), r);
  return m;
}

export function buildReport(plan: SweepPlan, records: ReadonlyMap<string, RunRecord>): SweepReport {
  const reps = plan.checks.determinism ? [0, 1] : [0];
  const get = (c: SweepConfig, seed: number, rep = 0): RunRecord | undefined => records.get(runKey(c.label, seed, rep));

  // Values of valid runs.
  const values = new Map<string, Record<string, number | null>>();
  const valueOf = (c: SweepConfig, seed: number, metric: string): number | null => {
    const k = runKey(c.label, seed, 0);
    let v = values.get(k);
    if (v === undefined) {
      v = {};
      values.set(k, v);
    }
    if (!(metric in v)) {
      const r = get(c, seed);
      v[metric] = r !== undefined && r.status === "ok" && r.metrics !== null ? clean(extractMetric(metric, r.metrics, fitnessWeights(c))) : null;
    }
    return v[metric]!;
  };

  let finished = 0;
  let ok = 0;
  const failures: FailureRow[] = [];
  for (const c of plan.configs) {
    for (const seed of plan.seeds) {
      for (const rep of reps) {
        const r = get(c, seed, rep);
        if (r === undefined) continue;
        finished++;
        if (r.status === "ok") ok++;
        else failures.push({ config: c.label, seed, run: rep + 1, status: r.status, error: r.error });
      }
    }
  }
  const expected = plan.configs.length * plan.seeds.length * reps.length;

  // 1. Per-seed table.
  const perSeed: PerSeedRow[] = [];
  for (const c of plan.configs) {
    for (const seed of plan.seeds) {
      const r = get(c, seed);
      const row: PerSeedRow = { config: c.label, seed, status: r?.status ?? "missing", values: {} };
      for (const m of plan.metrics) row.values[m] = valueOf(c, seed, m);
      perSeed.push(row);
    }
  }

  // 2. Summary table.
  const summary: SummaryRow[] = [];
  for (const c of plan.configs) {
    for (const m of plan.metrics) {
      const vs = plan.seeds.map((s) => valueOf(c, s, m)).filter((v): v is number => v !== null);
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

  // 3-4. Ratio table with verdicts.
  const ctx: SelectorContext = { axes: plan.axes, configs: plan.configs };
  const ratios: RatioRow[] = [];
  const ratioRow = (name: string, metric: string, num: SweepConfig, den: SweepConfig): RatioRow => {
    const perSeedRatios: { seed: number; value: number | null }[] = [];
    const both: [number, number][] = [];
    for (const s of plan.seeds) {
      const a = valueOf(num, s, metric);
      const b = valueOf(den, s, metric);
      if (a === null || b === null) {
        perSeedRatios.push({ seed: s, value: null });
        continue;
      }
      perSeedRatios.push({ seed: s, value: clean(a / Math.max(b, 0.001)) });
      both.push([a, b]);
    }
    const rs = perSeedRatios.map((x) => x.value).filter((v): v is number => v !== null);
    return {
      ratio: name,
      metric,
      numerator: num.label,
      denominator: den.label,
      per_seed: perSeedRatios,
      mean: rs.length > 0 ? mean(rs) : null,
      min: rs.length > 0 ? Math.min(...rs) : null,
      max: rs.length > 0 ? Math.max(...rs) : null,
      above_1: `${rs.filter((r) => r > 1).length}/${rs.length}`,
      below_1: `${rs.filter((r) => r < 1).length}/${rs.length}`,
      verdict: verdict(both),
    };
  };
  if (plan.baseline !== null) {
    const baseSet = new Set(matching(ctx, plan.baseline).map((c) => c.index));
    for (const c of plan.configs) {
      if (baseSet.has(c.index)) continue;
      const d = resolveRelative(ctx, plan.baseline, c);
      if (d === null || d.index === c.index) continue;
      for (const m of plan.metrics) ratios.push(ratioRow(`vs baseline ${plan.baseline.text}`, m, c, d));
    }
  }
  for (const def of plan.ratios) {
    for (const [n, d] of pairs(ctx, def.numerator, def.denominator)) {
      for (const m of def.metrics) ratios.push(ratioRow(def.name, m, n, d));
    }
  }

  // 5. Monotonicity.
  const monotonic: MonotonicResult[] = plan.checks.monotonic.map((def) => {
    const axis = plan.axes.find((a) => a.name === def.axis)!;
    const others = plan.axes.filter((a) => a.name !== def.axis);
    const whereText = Object.entries(def.where)
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    const check = `${def.metric} ${def.direction} along ${def.axis}${whereText !== "" ? ` where ${whereText}` : ""}`;
    const selected = plan.configs.filter((c) => Object.entries(def.where).every(([k, v]) => c.coords[k] === v));
    const groups = new Map<string, SweepConfig[]>();
    for (const c of selected) {
      const g = others.map((a) => `${a.name}=${c.coords[a.name]}`).join(",");
      const list = groups.get(g) ?? [];
      list.push(c);
      groups.set(g, list);
    }
    const num = (c: SweepConfig): number => axis.numeric![axis.labels.indexOf(c.coords[axis.name]!)]!;
    const rows: MonotonicRow[] = [];
    for (const [g, list] of groups) {
      const sorted = [...list].sort((a, b) => num(a) - num(b) || a.index - b.index);
      const series = (name: string, val: (c: SweepConfig) => number | null): void => {
        const points = sorted.map((c) => ({ axis_value: c.coords[axis.name]!, value: val(c) }));
        const [result, inv] = monotone(points, def.direction, def.axis);
        rows.push({ check, group: g === "" ? "(all)" : g, series: name, points, result, first_inversion: inv });
      };
      series("mean", (c) => {
        const vs = plan.seeds.map((s) => valueOf(c, s, def.metric)).filter((v): v is number => v !== null);
        return vs.length > 0 ? mean(vs) : null;
      });
      for (const s of plan.seeds) series(`seed=${s}`, (c) => valueOf(c, s, def.metric));
    }
    const result: CheckResult = rows.some((r) => r.result === "FAIL") ? "FAIL" : rows.some((r) => r.result === "PASS") ? "PASS" : "N/A";
    return { check, axis: def.axis, metric: def.metric, direction: def.direction, where: def.where, result, rows };
  });

  // 6. Conservation.
  let conservation: SweepReport["conservation"] = null;
  if (plan.checks.conservation) {
    const rows: ConservationRow[] = [];
    for (const c of plan.configs) {
      for (const seed of plan.seeds) {
        const r = get(c, seed);
        rows.push(conservationRow(c.label, seed, r));
      }
    }
    conservation = { result: overall(rows.map((r) => r.result)), rows };
  }

  // 7. Determinism.
  let determinism: SweepReport["determinism"] = null;
  if (plan.checks.determinism) {
    const rows: DeterminismRow[] = [];
    for (const c of plan.configs) {
      for (const seed of plan.seeds) rows.push(determinismRow(c.label, seed, get(c, seed, 0), get(c, seed, 1)));
    }
    determinism = { result: overall(rows.map((r) => r.result)), rows };
  }

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
  };
}

function fitnessWeights(c: SweepConfig): string {
  const w = (c.input as Record<string, unknown>)["fitnessWeights"];
  return typeof w === "string" ? w : "";
}

/** JSON has no NaN/Infinity: such values count as missing, as they would after a resume. */
function clean(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : v;
}

function mean(vs: number[]): number {
  let s = 0;
  for (const v of vs) s += v;
  return s / vs.length;
}

/**
 * §8.4 item 4 (labels only): `equivalent` if |a−b|/max(a,b) < 5 % for every seed; `significant`
 * if every per-seed change is > 20 % in the same direction; `inconclusive` if any seed changes by
 * < 10 %; otherwise `weak` (same direction, 10–20 %) or `mixed` (directions differ).
 */
export function verdict(pairsAB: readonly [number, number][]): string {
  if (pairsAB.length === 0) return "n/a";
  const rel = pairsAB.map(([a, b]) => {
    const m = Math.max(Math.abs(a), Math.abs(b));
    return m === 0 ? 0 : Math.abs(a - b) / m;
  });
  if (rel.every((x) => x < 0.05)) return "equivalent";
  const change = pairsAB.map(([a, b]) => a / Math.max(b, 0.001) - 1);
  if (change.every((c) => c > 0.2) || change.every((c) => c < -0.2)) return "significant";
  if (change.some((c) => Math.abs(c) < 0.1)) return "inconclusive";
  return change.every((c) => c > 0) || change.every((c) => c < 0) ? "weak" : "mixed";
}

function monotone(points: { axis_value: string; value: number | null }[], dir: string, axis: string): [CheckResult, string] {
  if (points.some((p) => p.value === null)) return ["N/A", "missing values (failed runs)"];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i]!.value!;
    const b = points[i + 1]!.value!;
    const okStep = dir === "increasing" ? b > a : b < a;
    if (!okStep) return ["FAIL", `${axis} ${points[i]!.axis_value}→${points[i + 1]!.axis_value}: ${fmtNum(a)} → ${fmtNum(b)}`];
  }
  return ["PASS", ""];
}

function overall(results: CheckResult[]): CheckResult {
  if (results.some((r) => r === "FAIL")) return "FAIL";
  return results.some((r) => r === "PASS") ? "PASS" : "N/A";
}

/** §8.4 item 6. */
export function conservationRow(config: string, seed: number, r: RunRecord | undefined): ConservationRow {
  const row: ConservationRow = {
    config,
    seed,
    status: r?.status ?? "missing",
    generated: null,
    injected: null,
    completed: null,
    still_queued: null,
    still_running: null,
    dropped_unservable: null,
    rejected: null,
    blocks: "N/A",
    instance_sum: "N/A",
    pipeline: "N/A",
    result: "N/A",
    detail: r === undefined ? "not run" : r.status !== "ok" ? "run failed" : "",
  };
  if (r === undefined || r.status !== "ok" || r.metrics === null) return row;
  const m: SimulationMetrics = r.metrics;
  const cl = m.cluster;
  Object.assign(row, {
    generated: m.generated,
    injected: cl.injected_requests,
    completed: cl.completed_requests,
    still_queued: cl.still_queued,
    still_running: cl.still_running,
    dropped_unservable: cl.dropped_unservable,
    rejected: m.anomalies.rejected,
  });
  const problems: string[] = [];
  row.blocks = "PASS";
  for (const b of [...m.instances, cl]) {
    const sum = b.completed_requests + b.still_queued + b.still_running + b.dropped_unservable;
    if (b.injected_requests !== sum) {
      row.blocks = "FAIL";
      problems.push(`${b.instance_id}: injected ${b.injected_requests} != completed+queued+running+dropped ${sum}`);
    }
  }
  if (m.instances.length > 1) {
    let s = 0;
    for (const b of m.instances) s += b.injected_requests;
    row.instance_sum = s === cl.injected_requests ? "PASS" : "FAIL";
    if (row.instance_sum === "FAIL") problems.push(`Σ instance injected ${s} != cluster injected ${cl.injected_requests}`);
  }
  if (m.allArrived) {
    const s = cl.injected_requests + m.anomalies.rejected;
    row.pipeline = s === m.generated ? "PASS" : "FAIL";
    if (row.pipeline === "FAIL") problems.push(`injected+rejected ${s} != generated ${m.generated}`);
  } else {
    problems.push("pipeline N/A: some requests arrive after the horizon");
  }
  row.result = [row.blocks, row.instance_sum, row.pipeline].includes("FAIL") ? "FAIL" : "PASS";
  row.detail = problems.join("; ");
  return row;
}

/** §8.4 item 7. */
export function determinismRow(config: string, seed: number, a: RunRecord | undefined, b: RunRecord | undefined): DeterminismRow {
  const row: DeterminismRow = { config, seed, result: "N/A", detail: "" };
  if (a === undefined || b === undefined) return { ...row, detail: "not run" };
  if (a.status === "timeout" || b.status === "timeout") return { ...row, detail: "timed out" };
  if (a.status !== b.status) return { ...row, result: "FAIL", detail: `status ${a.status} vs ${b.status}` };
  if (a.error !== b.error) return { ...row, result: "FAIL", detail: `error ${JSON.stringify(a.error)} vs ${JSON.stringify(b.error)}` };
  const diff = firstDifference(a.stdout, b.stdout);
  if (diff !== null) return { ...row, result: "FAIL", detail: diff };
  return { ...row, result: "PASS", detail: a.status === "ok" ? "" : `both ${a.status}` };
}

/** `line N: "a" vs "b"` for the first differing line, or null when identical. */
export function firstDifference(x: string, y: string): string | null {
  if (x === y) return null;
  const a = x.split("\n");
  const b = y.split("\n");
  const cut = (s: string | undefined): string => (s === undefined ? "<end of output>" : JSON.stringify(s.length > 80 ? s.slice(0, 77) + "..." : s));
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}: ${cut(a[i])} vs ${cut(b[i])}`;
  }
  return "outputs differ";
}

// Evaluations: run options of a point, a batch of points × seeds through the sweep engine (one
// record per evaluation as soon as its last seed finishes), and objective / constraint /
// feasibility of a finished evaluation.

import type { RunInput } from "../config/runOptions.js";
import { extractMetric, runCells, type CellSpec, type RunExecutor } from "../experiment/index.js";
import type { Point } from "./design.js";
import { boundText, type Constraint } from "./objective.js";
import type { Parameter } from "./parameters.js";
import type { OptimizeSpace } from "./space.js";
import type { EvalRecord, SeedRun } from "./store.js";

/** Metrics recorded for every run besides the objective and the constraint metrics. */
export const HEADLINE_METRICS = ["throughput", "ttft_p99", "e2e_p99", "completed", "rejected"];

export function recordedMetrics(space: OptimizeSpace): string[] {
  return [...new Set([space.objective.metric, ...space.constraints.map((c) => c.metric), ...HEADLINE_METRICS])];
}

function category(p: Parameter, label: unknown): Parameter["categories"][number] {
  const c = p.categories.find((x) => x.label === label);
  if (c === undefined) throw new Error(`parameter "${p.name}": no value "${String(label)}"`);
  return c;
}

/** Run options of a point (without the seed), or the reason it cannot be run. */
export function inputFor(space: OptimizeSpace, pt: Point): RunInput | string {
  const input: Record<string, unknown> = { ...space.base };
  const scorerParts: string[] = [];
  let hasScorers = false;
  const pluginOpts = [...((space.base.pluginOption as string[] | undefined) ?? [])];
  space.parameters.forEach((p, j) => {
    const v = pt[j]!;
    const t = p.target;
    switch (t.kind) {
      case "flag":
        input[t.def.key] = p.type === "categorical" ? category(p, v).value : v;
        break;
      case "variant":
        Object.assign(input, category(p, v).flags);
        break;
      case "scorer":
        hasScorers = true;
        if ((v as number) > 0) scorerParts.push(`${t.scorer}:${v}`);
        break;
      case "plugin_option":
        pluginOpts.push(`${t.option}=${v}`);
        break;
    }
  });
  if (hasScorers) {
    if (scorerParts.length === 0) return "every scorer weight is 0 (weighted routing needs at least one scorer)";
    input["routingScorers"] = scorerParts.join(",");
  }
  if (pluginOpts.length > 0) input["pluginOption"] = pluginOpts;
  return input as RunInput;
}

export interface BatchItem {
  /** Unique label inside the batch (cell label). */
  label: string;
  /** Run options, or why the point cannot be run (every seed is recorded as skipped). */
  input: RunInput | string;
  /** The record without runs; completed when every seed finished. */
  record: Omit<EvalRecord, "runs">;
}

export interface BatchContext {
  space: OptimizeSpace;
  pool: () => RunExecutor;
  /** stderr sink for the sweep engine's warnings. */
  say: (line: string) => void;
  /** Called once per evaluation, as soon as its last seed finished (records are complete). */
  onEvaluation: (rec: EvalRecord) => void;
}

/** Runs the items (each over every seed) as one sweep and returns their records in item order. */
export async function runBatch(ctx: BatchContext, items: BatchItem[]): Promise<EvalRecord[]> {
  const { space } = ctx;
  const names = recordedMetrics(space);
  const done = new Map<string, EvalRecord>();
  const finish = (item: BatchItem, runs: SeedRun[]): void => {
    const order = new Map(space.seeds.map((s, i) => [s, i]));
    runs.sort((a, b) => order.get(a.seed)! - order.get(b.seed)!);
    const rec: EvalRecord = { ...item.record, runs };
    done.set(item.label, rec);
    ctx.onEvaluation(rec);
  };
  const cells: CellSpec[] = [];
  for (const it of items) {
    if (typeof it.input === "string") {
      const why = it.input;
      finish(
        it,
        space.seeds.map((seed) => ({ seed, status: "skipped", error: `not run: ${why}`, metrics: {}, wall_s: 0 })),
      );
    } else cells.push({ label: it.label, input: it.input });
  }
  if (cells.length > 0) {
    const byLabel = new Map(items.map((it) => [it.label, it]));
    const partial = new Map<string, SeedRun[]>();
    await runCells(cells, {
      name: space.name,
      seeds: space.seeds,
      timeoutS: space.timeoutS,
      metrics: ["completed"],
      checks: { conservation: false },
      pool: ctx.pool(),
      progress: "none",
      stderr: ctx.say,
      onRecord: (rec, config) => {
        const metrics: Record<string, number | null> = {};
        if (rec.metrics !== null) {
          for (const m of names) {
            const v = extractMetric(m, rec.metrics, space.objective.fitnessWeights);
            metrics[m] = v !== null && Number.isFinite(v) ? v : null;
          }
        }
        const run: SeedRun = { seed: rec.seed, status: rec.status, error: rec.error, metrics, wall_s: rec.wall_s };
        const list = partial.get(config.label) ?? [];
        list.push(run);
        partial.set(config.label, list);
        if (list.length === space.seeds.length) finish(byLabel.get(config.label)!, list);
      },
    });
  }
  return items.map((it) => {
    const r = done.get(it.label);
    if (r === undefined) throw new Error(`optimize: evaluation ${it.label} did not finish`);
    return r;
  });
}

// ---------------------------------------------------------------------------------------------
// Objective, constraints, feasibility

export interface ConstraintResult {
  metric: string;
  /** Mean over seeds (null when a run failed or the metric is absent). */
  value: number | null;
  /** Resolved bounds (baseline factors applied). */
  min: number | null;
  max: number | null;
  /** The bounds as written (`0.9 × baseline`). */
  text: string;
  ok: boolean;
}

export interface Evaluated {
  rec: EvalRecord;
  /** Objective per seed (null for a failed run or an absent value) and its mean (null if any is null). */
  perSeed: (number | null)[];
  objective: number | null;
  /** Mean of every recorded metric over the seeds (null if any seed lacks it). */
  means: Record<string, number | null>;
  constraints: ConstraintResult[];
  feasible: boolean;
  /** Why it is infeasible ("" when feasible). */
  reason: string;
}

function mean(values: (number | null | undefined)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null || v === undefined || !Number.isFinite(v))) return null;
  return (values as number[]).reduce((s, v) => s + v, 0) / values.length;
}

export function constraintText(c: Constraint): string {
  const parts: string[] = [];
  if (c.min !== null) parts.push(`>= ${boundText(c.min)}`);
  if (c.max !== null) parts.push(`<= ${boundText(c.max)}`);
  return parts.join(" and ");
}

/** Objective, constraint values and feasibility of a finished evaluation. `baseline` = the baseline's means. */
export function assess(
  space: OptimizeSpace,
  rec: EvalRecord,
  baseline: Record<string, number | null> | null,
): Evaluated {
  const names = recordedMetrics(space);
  const means: Record<string, number | null> = {};
  for (const m of names) means[m] = mean(rec.runs.map((r) => (r.status === "ok" ? r.metrics[m] : null)));
  const perSeed = rec.runs.map((r) => (r.status === "ok" ? (r.metrics[space.objective.metric] ?? null) : null));
  const objective = mean(perSeed);
  const reasons: string[] = [];
  const failed = rec.runs.filter((r) => r.status !== "ok");
  if (failed.length > 0)
    reasons.push(
      `seed ${failed[0]!.seed}: ${failed[0]!.status === "skipped" ? failed[0]!.error : `${failed[0]!.status}: ${failed[0]!.error}`}`,
    );
  else if (objective === null) reasons.push(`no ${space.objective.metric} value`);
  const resolve = (b: Constraint["min"], metric: string): number | null => {
    if (b === null) return null;
    if (b.kind === "value") return b.value;
    const bv = baseline?.[metric];
    return bv === null || bv === undefined ? NaN : b.factor * bv;
  };
  const constraints = space.constraints.map((c): ConstraintResult => {
    const value = means[c.metric] ?? null;
    const min = resolve(c.min, c.metric);
    const max = resolve(c.max, c.metric);
    let ok = value !== null;
    if (ok && min !== null) ok = value! >= min;
    if (ok && max !== null) ok = value! <= max;
    if (!ok && failed.length === 0) {
      reasons.push(
        value === null
          ? `no ${c.metric} value`
          : `${c.metric} ${fmt(value)} violates ${constraintText(c)}${
              c.min?.kind === "baseline" || c.max?.kind === "baseline"
                ? ` (${[min, max]
                    .filter((x) => x !== null)
                    .map((x) => fmt(x!))
                    .join("..")})`
                : ""
            }`,
      );
    }
    return { metric: c.metric, value, min, max, text: constraintText(c), ok };
  });
  const feasible = reasons.length === 0;
  return { rec, perSeed, objective, means, constraints, feasible, reason: reasons.join("; ") };
}

export function isBetter(space: OptimizeSpace, a: number, b: number): boolean {
  return space.objective.direction === "minimize" ? a < b : a > b;
}

/** The best feasible evaluation (earliest on ties). */
export function bestOf(space: OptimizeSpace, evals: readonly Evaluated[]): Evaluated | null {
  let best: Evaluated | null = null;
  for (const e of evals) {
    if (!e.feasible || e.objective === null) continue;
    if (best === null || isBetter(space, e.objective, best.objective!)) best = e;
  }
  return best;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(1) : Number(v.toPrecision(4)).toString();
}

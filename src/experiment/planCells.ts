// Plans built in code (optimizers): configurations given as labeled run options instead of a plan
// file's grid, validated with the same messages minus YAML positions.

import type { RunInput } from "../config/runOptions.js";
import { PlanError } from "./errors.js";
import { DEFAULT_METRICS, metricProblem } from "./metrics.js";
import { assignDirs } from "./planIdentity.js";
import { preflightWarnings } from "./planPreflight.js";
import { matching, parseSelector, type SelectorContext } from "./planSelectors.js";
import {
  DEFAULT_SEEDS,
  DEFAULT_TIMEOUT_S,
  timeoutProblem,
  type RatioDef,
  type Selector,
  type SweepAxis,
  type SweepChecks,
  type SweepConfig,
  type SweepPlan,
} from "./planTypes.js";

export interface CellSpec {
  /** Unique label of the configuration. */
  label: string;
  /** Run options without the seed. */
  input: RunInput;
  /** Optional axis coordinates (axis name → value) for ratios by axis value and monotonicity checks. */
  coords?: Record<string, string | number>;
}

export interface CellsPlanOptions {
  name?: string;
  seeds?: number[];
  timeoutS?: number;
  metrics?: string[];
  /** A cell label or `axis=value`. */
  baseline?: string;
  ratios?: { name?: string; numerator: string; denominator: string; metric?: string; metrics?: string[] }[];
  checks?: Partial<SweepChecks>;
  /** Failed runs do not make the exit status 1 (default false). */
  allowFailures?: boolean;
}

function fail(msg: string): never {
  throw new PlanError(msg);
}

function cellSeeds(opts: CellsPlanOptions): number[] {
  const seeds = opts.seeds ?? DEFAULT_SEEDS.slice();
  if (seeds.length === 0) fail("seeds: the seed list must not be empty");
  seeds.forEach(
    (s, i) =>
      Number.isSafeInteger(s) || fail(`seeds[${i}]: expected an integer of at most 2^53 − 1 in magnitude, got ${s}`),
  );
  if (new Set(seeds).size !== seeds.length) fail("seeds: a seed is listed twice");
  return seeds;
}

/** Axes from the cells' coordinates, values in first-seen order. */
function axesFromCoords(cells: CellSpec[]): SweepAxis[] {
  const axisValues = new Map<string, (string | number)[]>();
  for (const c of cells)
    for (const [k, v] of Object.entries(c.coords ?? {})) {
      const list = axisValues.get(k) ?? [];
      if (!list.includes(v)) list.push(v);
      axisValues.set(k, list);
    }
  return [...axisValues].map(([name, vals]) => ({
    name,
    kind: "coord",
    target: "",
    labels: vals.map(String),
    texts: vals.map(String),
    numeric: vals.every((v) => typeof v === "number") ? (vals as number[]) : null,
  }));
}

function configsFromCells(cells: CellSpec[], axes: SweepAxis[]): SweepConfig[] {
  const labels = new Set<string>();
  return cells.map((c, i) => {
    if (c.label === "") fail(`cells[${i}]: the label must not be empty`);
    if (labels.has(c.label)) fail(`cells[${i}] "${c.label}": labels must be unique`);
    labels.add(c.label);
    if ((c.input as Record<string, unknown>)["seed"] !== undefined)
      fail(`cells[${i}] "${c.label}": the seed comes from seeds`);
    const coords: Record<string, string> = {};
    for (const a of axes) {
      const v = c.coords?.[a.name];
      if (v === undefined)
        fail(`cells[${i}] "${c.label}": missing coordinate "${a.name}" (every cell needs the same axes)`);
      coords[a.name] = String(v);
    }
    return { index: i, label: c.label, coords, input: c.input, dir: "" };
  });
}

/**
 * Builds a plan from in-memory cells (label + run options), for callers that generate
 * configurations themselves. Throws PlanError on invalid input.
 */
export function planFromCells(cells: CellSpec[], opts: CellsPlanOptions = {}): SweepPlan {
  if (cells.length === 0) fail("cells: the list must not be empty");
  const seeds = cellSeeds(opts);
  const timeoutS = opts.timeoutS ?? DEFAULT_TIMEOUT_S;
  const why = timeoutProblem(timeoutS);
  if (why !== null) fail(`timeout_s: ${why}`);
  const axes = axesFromCoords(cells);
  const configs = configsFromCells(cells, axes);
  assignDirs(configs);
  const ctx: SelectorContext = { axes, configs };
  const sel = (t: string, item: string): Selector => {
    const s = parseSelector(ctx, t);
    if (typeof s === "string") return fail(`${item} "${t}": ${s}`);
    if (matching(ctx, s).length === 0) fail(`${item} "${t}": matches no configuration`);
    return s;
  };
  const metric = (m: string, item: string): string => {
    const why = metricProblem(m);
    return why === null ? m : fail(`${item} "${m}": ${why}`);
  };
  const metrics = (opts.metrics ?? [...DEFAULT_METRICS]).map((m, i) => metric(m, `metrics[${i}]`));
  if (metrics.length === 0) fail("metrics: the metric list must not be empty");
  const ratios: RatioDef[] = (opts.ratios ?? []).map((r, i) => {
    const numerator = sel(r.numerator, `ratios[${i}] numerator`);
    const denominator = sel(r.denominator, `ratios[${i}] denominator`);
    const ms =
      r.metric !== undefined
        ? [metric(r.metric, `ratios[${i}] metric`)]
        : (r.metrics ?? metrics).map((m) => metric(m, `ratios[${i}] metrics`));
    return { name: r.name ?? `${r.numerator} / ${r.denominator}`, numerator, denominator, metrics: ms };
  });
  const monotonic = (opts.checks?.monotonic ?? []).map((m, i) => {
    const ax = axes.find((a) => a.name === m.axis);
    if (ax === undefined || ax.numeric === null)
      fail(`checks.monotonic[${i}]: axis "${m.axis}" must exist and be numeric`);
    metric(m.metric, `checks.monotonic[${i}] metric`);
    return { ...m, where: m.where ?? {} };
  });
  return {
    name: opts.name ?? "sweep",
    source: null,
    seeds,
    timeoutS,
    axes,
    configs,
    baseline: opts.baseline !== undefined ? sel(opts.baseline, "baseline") : null,
    metrics,
    ratios,
    checks: {
      conservation: opts.checks?.conservation ?? true,
      determinism: opts.checks?.determinism ?? false,
      monotonic,
    },
    allowFailures: opts.allowFailures ?? false,
    warnings: preflightWarnings(configs),
  };
}

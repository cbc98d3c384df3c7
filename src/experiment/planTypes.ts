// The shape of a validated, expanded sweep plan (examples/experiments/README.md "Plan keys") and its defaults, shared
// by the
// plan-file reader, plans built in code, and the report.

import type { RunInput } from "../config/runOptions.js";

export const DEFAULT_SEEDS = [42, 123, 456];
export const DEFAULT_TIMEOUT_S = 300;
/**
 * The longest per-run timeout: Node's timers hold at most 2^31 − 1 ms (about 24.8 days); a longer one fires at once.
 */
export const MAX_TIMEOUT_S = 2147483;

/** Null when `v` is a usable timeout_s, else what it must be. */
export function timeoutProblem(v: unknown): string | null {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return "expected a number of seconds > 0";
  if (v > MAX_TIMEOUT_S) return `at most ${MAX_TIMEOUT_S} seconds (about 24.8 days), got ${v}`;
  return null;
}
/** Name of the implicit axis formed by `variants`. */
export const VARIANT_AXIS = "variant";

/** One dimension of the configuration grid. */
export interface SweepAxis {
  name: string;
  /** What the axis sets: a run flag, a workload-spec path, the variant bundle, or a caller's coordinate. */
  kind: "flag" | "spec" | "variant" | "coord";
  /** Flag name (without dashes) or spec path; "" for variants and coordinates. */
  target: string;
  /** Value labels in plan order; they appear in configuration labels and selectors. */
  labels: string[];
  /** The values as written in the plan (equal to labels unless `labels` was given). */
  texts: string[];
  /** The values as numbers when every value is a number (monotonicity checks), else null. */
  numeric: number[] | null;
}

/** One point of the grid: the run options shared by all its seeds. */
export interface SweepConfig {
  index: number;
  /** `name=value` pairs joined by commas (or the caller's label). */
  label: string;
  /** Axis name → value label. */
  coords: Record<string, string>;
  /** Run options without the seed (added per run). */
  input: RunInput;
  /** Directory name under --out (sanitized label, unique). */
  dir: string;
}

/** A configuration reference: a full label, or axis assignments applied relative to another config. */
export type Selector = { text: string; config: number } | { text: string; assign: Record<string, string> };

export interface RatioDef {
  name: string;
  numerator: Selector;
  denominator: Selector;
  metrics: string[];
}

export interface MonotonicDef {
  axis: string;
  metric: string;
  direction: "increasing" | "decreasing";
  /** Restricts the check to configurations with these axis values. */
  where: Record<string, string>;
}

export interface SweepChecks {
  conservation: boolean;
  determinism: boolean;
  monotonic: MonotonicDef[];
}

/** A validated, expanded plan: what `runSweep` executes. */
export interface SweepPlan {
  name: string;
  /** The plan file, when loaded from one. */
  source: string | null;
  seeds: number[];
  timeoutS: number;
  axes: SweepAxis[];
  configs: SweepConfig[];
  baseline: Selector | null;
  metrics: string[];
  ratios: RatioDef[];
  checks: SweepChecks;
  /** Failed runs leave the exit status alone (`allow_failures: true`); otherwise they make it 1. */
  allowFailures: boolean;
  /** Preflight warnings (planPreflight.ts). */
  warnings: string[];
}

// `fit`: coefficients whose simulated TTFT, ITL and E2E match measured runs (docs/calibration.md
// "Fit"). Simulation in the loop: each round replays every experiment, linearizes the step times
// around the schedule it produced, and solves a non-negative least squares for the next
// coefficients; a bounded coordinate search on the true objective can follow.

import type { Coefficients } from "../../latency/backends/backend.js";
import type { FitExperiment } from "../experiments.js";
import type { ExperimentEval } from "./evaluate.js";
import { addInto, emptyNormalEquations, solveNnls } from "./nnls.js";
import { commonLayout } from "./layout.js";
import { NUM_PARAMS } from "./params.js";

export type Evaluator = (experiments: readonly FitExperiment[], theta: Float64Array) => Promise<ExperimentEval[]>;

export interface FitOptions {
  experiments: readonly FitExperiment[];
  start: Coefficients;
  /** Indices (params.ts) of the parameters to fit; the others keep their start values. */
  free: readonly number[];
  /** Parameters also fitted when the data exercises them (their feature is non-zero at the start). */
  whenUsed?: readonly number[];
  /** Least-squares rounds (each one replay of every experiment). */
  iterations: number;
  /** Extra replays of every experiment for the coordinate search after the rounds. */
  budget: number;
  /** Ridge pull toward the start values, per unit-scaled parameter. */
  lambda: number;
  evaluate: Evaluator;
  /** Evaluations already made (resume): key = thetaKey(θ). */
  memo?: Map<string, ExperimentEval[]>;
  onEvaluated?: (key: string, evals: ExperimentEval[]) => void;
  progress?: (line: string) => void;
}

export interface FitStep {
  phase: "start" | "least-squares" | "search";
  objective: number;
  theta: number[];
}

export interface FitResult {
  /** The parameters fitted: the requested ones and those of `whenUsed` the data exercises. */
  free: number[];
  coefficients: Coefficients;
  theta: Float64Array;
  before: ExperimentEval[];
  after: ExperimentEval[];
  objectiveBefore: number;
  objectiveAfter: number;
  steps: FitStep[];
}

/**
 * Scale of the robust loss (a fraction): errors well above it count logarithmically. An
 * experiment the model cannot follow, such as one that saturates in simulation but not in
 * reality, must not decide the coefficients of every other one (Cauchy loss).
 */
export const ROBUST_SCALE = 0.5;

const C2 = ROBUST_SCALE * ROBUST_SCALE;
const cauchy = (e: number): number => C2 * Math.log1p((e * e) / C2);

/** The weight of an experiment's least-squares rows at error e (iteratively reweighted). */
export const robustWeight = (e: number): number => 1 / (1 + (e * e) / C2);

/**
 * The root of the mean Cauchy loss over experiments of each experiment's binned-mean error (close
 * to the root mean square while errors are small). Per-request errors are not used as the
 * criterion: a request that misses a step boundary by a microsecond waits a whole step, so they
 * jump with every coefficient change (docs/calibration.md "Fit").
 */
export function objective(evals: readonly ExperimentEval[]): number {
  if (evals.length === 0) return 0;
  let s = 0;
  for (const e of evals) s += cauchy(e.errors.binned);
  return Math.sqrt(s / evals.length);
}

export const thetaKey = (t: ArrayLike<number>): string => Array.from(t, (v) => v.toPrecision(12)).join(",");

export async function fitCoefficients(o: FitOptions): Promise<FitResult> {
  const memo = o.memo ?? new Map<string, ExperimentEval[]>();
  const log = o.progress ?? (() => undefined);
  const steps: FitStep[] = [];
  const evalAt = async (t: Float64Array, phase: FitStep["phase"]): Promise<{ evals: ExperimentEval[]; J: number }> => {
    const key = thetaKey(t);
    let evals = memo.get(key);
    if (evals === undefined) {
      evals = await o.evaluate(o.experiments, t);
      memo.set(key, evals);
      o.onEvaluated?.(key, evals);
    }
    const J = objective(evals);
    steps.push({ phase, objective: J, theta: Array.from(t) });
    return { evals, J };
  };

  const layout = commonLayout(o.experiments.map((x) => x.run));
  const prior = layout.toTheta(o.start);
  const first = await evalAt(Float64Array.from(prior), "start");
  log(`start: objective ${first.J.toFixed(4)}`);
  let best: Point = { theta: Float64Array.from(prior), ...first };
  const free = withUsed(o.free, o.whenUsed ?? [], first.evals);
  const added = free.filter((j) => !o.free.includes(j));
  if (added.length > 0) log(`also fitting ${added.map((j) => layout.names[j]).join(", ")}: the data exercises them`);
  // Levenberg-Marquardt-like trust region: a pull toward the best point that loosens after a
  // success and tightens after a failure, since the linearization holds only near its schedule.
  let mu = 0.1;
  for (let it = 1; it <= o.iterations; it++) {
    const ne = emptyNormalEquations(NUM_PARAMS);
    for (const e of best.evals) addInto(ne, e.ne, robustWeight(e.errors.binned));
    const pulls = [
      { center: prior, lambda: o.lambda },
      { center: best.theta, lambda: mu },
    ];
    const next = solveNnls(ne, best.theta, free, pulls);
    const change = maxRelativeChange(next, best.theta);
    const r = await evalAt(next, "least-squares");
    const accepted = r.J < best.J;
    log(
      `round ${it}/${o.iterations}: objective ${r.J.toFixed(4)}${accepted ? "" : " (rejected)"}, parameter change ${(change * 100).toFixed(1)}%`,
    );
    if (accepted) {
      best = { theta: next, ...r };
      mu = Math.max(mu / 10, 1e-8);
      if (change < 1e-3) break;
    } else mu *= 4;
  }
  best = await coordinateSearch({ ...o, free }, best, evalAt, log);
  return {
    free,
    coefficients: layout.fromTheta(best.theta),
    theta: best.theta,
    before: first.evals,
    after: best.evals,
    objectiveBefore: first.J,
    objectiveAfter: best.J,
    steps,
  };
}

function withUsed(free: readonly number[], whenUsed: readonly number[], evals: readonly ExperimentEval[]): number[] {
  const out = new Set(free);
  for (const j of whenUsed) if (evals.some((e) => e.ne.G[j * NUM_PARAMS + j]! > 0)) out.add(j);
  return [...out].sort((a, b) => a - b);
}

function maxRelativeChange(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let j = 0; j < a.length; j++) {
    // Symmetric, so a parameter leaving zero counts as a 100% change rather than an overflow.
    const d = Math.abs(a[j]! - b[j]!) / Math.max(Math.abs(a[j]!), Math.abs(b[j]!), 1e-12);
    if (d > m) m = d;
  }
  return m;
}

type Point = { theta: Float64Array; evals: ExperimentEval[]; J: number };

/** Multiplicative coordinate search: ±step per free parameter, halving a step that fails twice. */
async function coordinateSearch(
  o: FitOptions,
  start: Point,
  evalAt: (t: Float64Array, phase: FitStep["phase"]) => Promise<{ evals: ExperimentEval[]; J: number }>,
  log: (line: string) => void,
): Promise<Point> {
  let best = start;
  const step = o.free.map(() => 0.2);
  let used = 0;
  let k = 0;
  while (used < o.budget && step.some((s) => s > 1e-3)) {
    const a = k++ % o.free.length;
    const j = o.free[a]!;
    if (step[a]! <= 1e-3) continue;
    let improved = false;
    for (const sign of [1, -1]) {
      if (used >= o.budget) break;
      const t = Float64Array.from(best.theta);
      const base = t[j]! > 0 ? t[j]! : 1e-3;
      t[j] = Math.max(0, base * (1 + sign * step[a]!));
      const r = await evalAt(t, "search");
      used++;
      if (r.J < best.J) {
        best = { theta: t, ...r };
        improved = true;
        log(`search ${used}/${o.budget}: objective ${r.J.toFixed(4)}`);
        break;
      }
    }
    if (!improved) step[a] = step[a]! / 2;
  }
  return best;
}

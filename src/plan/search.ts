// The search: for every runnable shape, the fewest copies meeting every SLO, by exponential then
// binary search from the shape's physical lower bound (latency falls as copies are added, so
// feasibility is monotone in the copies; the points run are checked for it). Shapes are searched
// a fixed number at a time, cheapest lower bound first, in lockstep steps; a shape stops as soon
// as every count still open for it costs more per hour than the best point found. The path
// depends only on simulation results, never on timing.

import type { Evaluation, Evaluator } from "./evaluate.js";
import { judge, type Verdict } from "./judge.js";
import type { PlanQuestion } from "./question.js";
import { compareKeys, hourlyCost, type RankKey } from "./rank.js";
import { gpusOf, type Shape } from "./shapes.js";
import type { ShapeBound } from "./bound.js";

export interface PathPoint {
  step: number;
  units: number;
  feasible: boolean;
  reason: string;
  evaluation: Evaluation;
  verdict: Verdict;
}

export type SearchEnd = "found" | "dearer" | "max";

export interface ShapeSearch {
  shape: Shape;
  /** Position in the candidate order (ties). */
  index: number;
  bound: ShapeBound;
  pricePerGpu: number;
  /** Largest count known not to meet the SLOs (bound − 1 before any run). */
  lo: number;
  /** Smallest count known to meet them. */
  hi: number | null;
  end: SearchEnd | null;
  path: PathPoint[];
}

export function rankKey(s: ShapeSearch, units: number): RankKey {
  const gpus = gpusOf(s.shape, units);
  return [hourlyCost(gpus, s.pricePerGpu), gpus, s.index];
}

/**
 * The next count of the exponential phase after a failure at `lo` copies: double, unless the run
 * at `lo` fell behind the load, whose completion ratio r then says about how many copies would
 * keep up (lo / r): that many (with 5 % to spare), at least one more and at most double.
 */
function grow(s: ShapeSearch, minRatio: number): number {
  const at = s.path.filter((p) => p.units === s.lo).pop();
  const ratios = at?.evaluation.seeds.map((x) => x.metrics["steady_completion_ratio"] ?? null) ?? [];
  const worst =
    ratios.length > 0 && ratios.every((r) => r !== null && r > 0) ? Math.min(...(ratios as number[])) : null;
  if (worst === null || worst >= minRatio) return 2 * s.lo;
  return Math.min(2 * s.lo, Math.max(s.lo + 1, Math.ceil((s.lo / worst) * 1.05)));
}

/** The point a shape runs next, or null after marking it finished. */
function nextUnits(s: ShapeSearch, best: RankKey | null, maxUnits: number, minRatio: number): number | null {
  // Only strictly dearer counts stop a shape: one as dear as the best is still searched, so that
  // ties (broken by fewer GPUs, then candidate order) are reported with their own minimum.
  const beaten = (u: number): boolean => best !== null && rankKey(s, u)[0] > best[0];
  if (beaten(s.lo + 1)) {
    // Every count still open ranks below the best point: the shape cannot win.
    s.end = s.hi !== null && s.hi - s.lo <= 1 ? "found" : "dearer";
    return null;
  }
  if (s.hi !== null) {
    if (s.hi - s.lo <= 1) {
      s.end = "found";
      return null;
    }
    return Math.floor((s.lo + s.hi) / 2);
  }
  if (s.lo >= maxUnits) {
    s.end = "max";
    return null;
  }
  let u = s.lo < s.bound.units ? s.bound.units : Math.min(grow(s, minRatio), maxUnits);
  while (u > s.lo + 1 && beaten(u)) u--;
  return u;
}

function bestKey(searches: readonly ShapeSearch[]): RankKey | null {
  let best: RankKey | null = null;
  for (const s of searches) {
    if (s.hi === null) continue;
    const k = rankKey(s, s.hi);
    if (best === null || compareKeys(k, best) < 0) best = k;
  }
  return best;
}

export interface SearchHooks {
  /** After every step: its number, the shapes still searching, the simulations so far. */
  onStep?: (step: number, active: number, best: ShapeSearch | null) => void;
}

/** Runs the search over `searches` (mutated: lo, hi, end, path). Returns the number of steps. */
export async function searchShapes(
  q: PlanQuestion,
  ev: Evaluator,
  searches: ShapeSearch[],
  hooks: SearchHooks = {},
): Promise<number> {
  const order = [...searches].sort((a, b) => compareKeys(rankKey(a, a.bound.units), rankKey(b, b.bound.units)));
  let step = 0;
  for (;;) {
    const best = bestKey(searches);
    const batch: { s: ShapeSearch; units: number }[] = [];
    for (const s of order) {
      if (batch.length >= q.shapesPerStep) break;
      if (s.end !== null) continue;
      const u = nextUnits(s, best, q.maxUnits, q.minCompletionRatio);
      if (u !== null) batch.push({ s, units: u });
    }
    if (batch.length === 0) return step;
    step++;
    const evals = await ev.evaluate(
      batch.map(({ s, units }) => ({ shape: s.shape, units, rate: q.rate, requests: q.requests })),
    );
    batch.forEach(({ s, units }, i) => {
      const verdict = judge(evals[i]!, q.slos, q.seedRule, q.minCompletionRatio);
      s.path.push({ step, units, feasible: verdict.feasible, reason: verdict.reason, evaluation: evals[i]!, verdict });
      if (verdict.feasible) s.hi = s.hi === null ? units : Math.min(s.hi, units);
      else s.lo = Math.max(s.lo, units);
    });
    if (hooks.onStep !== undefined) {
      const b = bestKey(searches);
      const bs = b === null ? null : (searches.find((s) => s.index === b[2]) ?? null);
      hooks.onStep(step, order.filter((s) => s.end === null).length, bs);
    }
  }
}

export interface MonotonicityReport {
  /** Pairs of points of one shape compared. */
  pairs: number;
  /** A count that met the SLOs below one that did not. */
  violations: { shape: string; feasibleUnits: number; infeasibleUnits: number }[];
}

/** Checks on the points run that feasibility never falls as copies are added. */
export function checkMonotonicity(searches: readonly ShapeSearch[]): MonotonicityReport {
  const out: MonotonicityReport = { pairs: 0, violations: [] };
  for (const s of searches) {
    const pts = [...s.path].sort((a, b) => a.units - b.units);
    for (let i = 0; i < pts.length; i++) {
      for (let j = i + 1; j < pts.length; j++) {
        if (pts[i]!.units === pts[j]!.units) continue;
        out.pairs++;
        if (pts[i]!.feasible && !pts[j]!.feasible) {
          out.violations.push({ shape: s.shape.id, feasibleUnits: pts[i]!.units, infeasibleUnits: pts[j]!.units });
        }
      }
    }
  }
  return out;
}

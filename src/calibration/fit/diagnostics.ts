// What a finished fit says about itself (docs/calibration.md "Fit diagnostics"): an approximate
// standard error per fitted parameter, and the reasons a fit is degenerate.

import { Matrix, pseudoInverse } from "ml-matrix";
import type { ExperimentEval } from "./evaluate.js";
import { addInto, emptyNormalEquations } from "./nnls.js";
import { NUM_PARAMS } from "./params.js";

export interface ParameterReport {
  name: string;
  value: number;
  /** Approximate standard error; Infinity when the data does not determine the parameter. */
  stderr: number;
}

/**
 * Standard errors from the linearized normal equations at the fitted point: Cov ≈ σ²·(AᵀA)⁻¹ over
 * the free parameters, σ² the mean squared relative error of the fitted rows (the objective²).
 */
export function standardErrors(evals: readonly ExperimentEval[], free: readonly number[], objective: number): number[] {
  const ne = emptyNormalEquations(NUM_PARAMS);
  for (const e of evals) addInto(ne, e.ne);
  const G = new Matrix(free.length, free.length);
  free.forEach((i, a) => free.forEach((j, b) => G.set(a, b, ne.G[i * NUM_PARAMS + j]!)));
  const diag = free.map((i) => ne.G[i * NUM_PARAMS + i]!);
  if (diag.some((d) => !(d > 0))) return free.map((_, a) => (diag[a]! > 0 ? NaN : Infinity));
  const inv = pseudoInverse(G);
  const s2 = objective * objective;
  return free.map((_, a) => {
    const v = inv.get(a, a) * s2;
    return v > 0 && Number.isFinite(v) ? Math.sqrt(v) : Infinity;
  });
}

export interface DegeneracyInput {
  names: readonly string[];
  free: readonly number[];
  theta: ArrayLike<number>;
  stderr: readonly number[];
  objectiveBefore: number;
  objectiveAfter: number;
  iterations: number;
  scoredRequests: number;
}

/** Fewer matched requests than this cannot determine a handful of overheads. */
export const MIN_SCORED_REQUESTS = 30;
/** Least-squares rounds below this rarely reach the optimum from the bundled start. */
export const MIN_ROUNDS = 3;

/** One line per reason the fit is degenerate (empty: none). */
export function degeneracies(d: DegeneracyInput): string[] {
  const out: string[] = [];
  if (d.scoredRequests < MIN_SCORED_REQUESTS) {
    out.push(
      `only ${d.scoredRequests} matched requests (at least ${MIN_SCORED_REQUESTS} are needed to determine the terms)`,
    );
  }
  if (d.iterations < MIN_ROUNDS)
    out.push(`--iterations ${d.iterations}: fewer than ${MIN_ROUNDS} least-squares rounds`);
  if (!(d.objectiveAfter < d.objectiveBefore)) {
    out.push(`the objective did not improve (${d.objectiveBefore.toFixed(4)} → ${d.objectiveAfter.toFixed(4)})`);
  }
  const atZero = d.free.filter((j) => d.theta[j] === 0).map((j) => d.names[j]!);
  if (atZero.length > 0) out.push(`stuck at the bound 0: ${atZero.join(", ")}`);
  const loose = d.free.filter((j, a) => !(d.stderr[a]! < Infinity) && d.theta[j] !== 0).map((j) => d.names[j]!);
  if (loose.length > 0) out.push(`not determined by the data: ${loose.join(", ")}`);
  return out;
}

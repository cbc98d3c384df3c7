// Expected improvement (for minimization) and batch selection with the kriging believer: after
// each pick the GP is conditioned on its own posterior mean at that point (same hyperparameters),
// which shrinks the variance around it so the next pick goes elsewhere.

import type { Rng } from "../engine/rng.js";
import { encodePoint, perturbPoint, pointKey, randomPoint, type Point } from "./design.js";
import { GaussianProcess, type Surrogate } from "./gp.js";
import type { Parameter } from "./parameters.js";

export function normPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** erfc(x) with fractional error < 1.2e-7 everywhere (Chebyshev fit, Numerical Recipes erfcc). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

export function normCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/**
 * Expected improvement below `best` of a normal posterior N(mean, variance), for minimization:
 * E[max(0, best - ξ - f)] = (best - ξ - mean) Φ(u) + σ φ(u), u = (best - ξ - mean) / σ.
 * With σ → 0 it tends to max(0, best - ξ - mean).
 */
export function expectedImprovement(mean: number, variance: number, best: number, xi = 0): number {
  const imp = best - xi - mean;
  const sigma = Math.sqrt(Math.max(variance, 0));
  if (sigma < 1e-12) return Math.max(0, imp);
  const u = imp / sigma;
  return Math.max(0, imp * normCdf(u) + sigma * normPdf(u));
}

export interface ProposeOptions {
  /** Uniform random candidates per batch. */
  randomCandidates?: number;
  /** Candidates around each of the best few observations. */
  localCandidates?: number;
  /** How many of the best observations seed local candidates. */
  localCentres?: number;
  /** Exploration margin ξ in standardized units. */
  xi?: number;
  /**
   * Every candidate point, instead of sampled ones (a finite space's points not evaluated yet).
   * Points in `exclude` are left out all the same.
   */
  pool?: readonly Point[];
}

export interface Proposal {
  point: Point;
  /** EI (standardized units) when picked; 0 = no candidate promised improvement (exploration pick). */
  ei: number;
  /** Posterior mean and standard deviation (original units of the minimized value). */
  mean: number;
  sd: number;
}

/**
 * The candidate points of a batch, none in `exclude` and none twice: opts.pool, or uniform points
 * followed by local moves around the best observations.
 */
function candidates(
  params: readonly Parameter[],
  sur: Surrogate,
  observed: readonly Point[],
  rng: Rng,
  exclude: Set<string>,
  opts: ProposeOptions,
): Point[] {
  const nRandom = opts.randomCandidates ?? 3000;
  const nLocal = opts.localCandidates ?? 200;
  const nCentres = opts.localCentres ?? 5;
  const cands: Point[] = [];
  const seen = new Set<string>();
  const add = (p: Point): void => {
    const k = pointKey(p);
    if (seen.has(k) || exclude.has(k)) return;
    seen.add(k);
    cands.push(p);
  };
  if (opts.pool !== undefined) {
    opts.pool.forEach(add);
    return cands;
  }
  for (let i = 0; i < nRandom; i++) add(randomPoint(params, rng));
  const order = sur.z.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [, i] of order.slice(0, nCentres)) {
    for (let k = 0; k < nLocal; k++) {
      const scale = k % 2 === 0 ? 0.05 : 0.15;
      add(perturbPoint(params, observed[i]!, rng, scale, 0.15));
    }
  }
  return cands;
}

/**
 * Picks q new points maximizing EI over many candidate points (uniform ones and perturbations of
 * the best observations, or opts.pool), one after another with the kriging believer. `observed`
 * are the training points (same order as the surrogate's data), `bestZ` the standardized value EI
 * improves on, and `exclude` the keys of points already evaluated or pending: a candidate is never
 * one of them, so the best pick left is always a new point.
 */
export function proposeBatch(
  params: readonly Parameter[],
  sur: Surrogate,
  observed: readonly Point[],
  bestZ: number,
  q: number,
  rng: Rng,
  exclude: Set<string>,
  opts: ProposeOptions = {},
): Proposal[] {
  const xi = opts.xi ?? 0.01;
  const cands = candidates(params, sur, observed, rng, exclude, opts);
  const feats = cands.map((p) => encodePoint(params, p));
  const taken = new Array<boolean>(cands.length).fill(false);

  const out: Proposal[] = [];
  let gp = sur.gp;
  let best = bestZ;
  const X = [...sur.gp.X];
  const z = [...sur.z];
  for (let j = 0; j < q; j++) {
    let pick = -1;
    let pickEi = -1;
    let pickVar = -1;
    let maxVar = -1;
    let maxVarIdx = -1;
    for (let c = 0; c < cands.length; c++) {
      if (taken[c]) continue;
      const { mean, variance } = gp.predict(feats[c]!);
      const ei = expectedImprovement(mean, variance, best, xi);
      if (ei > pickEi || (ei === pickEi && variance > pickVar)) {
        pick = c;
        pickEi = ei;
        pickVar = variance;
      }
      if (variance > maxVar) {
        maxVar = variance;
        maxVarIdx = c;
      }
    }
    if (pick < 0) break; // no candidates left
    // No candidate promises any improvement (numerically): explore where the model knows least.
    if (!(pickEi > 1e-12)) {
      pick = maxVarIdx;
      pickEi = 0;
    }
    taken[pick] = true;
    const { mean, variance } = gp.predict(feats[pick]!);
    out.push({
      point: cands[pick]!,
      ei: pickEi,
      mean: sur.yMean + sur.yStd * mean,
      sd: sur.yStd * Math.sqrt(variance),
    });
    if (j + 1 < q) {
      // Kriging believer: pretend the GP mean was observed there.
      X.push(feats[pick]!);
      z.push(mean);
      best = Math.min(best, mean);
      gp = new GaussianProcess(X, z, sur.gp.hyper);
    }
  }
  return out;
}

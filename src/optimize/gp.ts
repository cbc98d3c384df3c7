// A small Gaussian-process regression surrogate: zero-mean GP with a squared-exponential or
// Matérn 5/2 kernel (one length scale per feature), exact inference through a Cholesky
// factorization (ml-matrix), and hyperparameters chosen by the log marginal likelihood over a
// grid of length scales and noise levels, with the signal variance profiled out in closed form.

import { CholeskyDecomposition, Matrix } from "ml-matrix";

export type KernelKind = "se" | "matern52";

export interface GpHyper {
  kernel: KernelKind;
  /** One length scale per feature. */
  lengthScales: number[];
  /** σ_f²: prior variance of the latent function. */
  signalVariance: number;
  /** σ_n²: observation noise variance (added to the diagonal). */
  noiseVariance: number;
}

/** Correlation at scaled distance r = sqrt(Σ ((a_k - b_k) / ℓ_k)²). */
export function correlation(kind: KernelKind, r2: number): number {
  if (kind === "se") return Math.exp(-0.5 * r2);
  const r = Math.sqrt(5 * r2);
  return (1 + r + (5 * r2) / 3) * Math.exp(-r);
}

function scaledDist2(a: readonly number[], b: readonly number[], ls: readonly number[]): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) {
    const d = (a[k]! - b[k]!) / ls[k]!;
    s += d * d;
  }
  return s;
}

export function kernel(h: GpHyper, a: readonly number[], b: readonly number[]): number {
  return h.signalVariance * correlation(h.kernel, scaledDist2(a, b, h.lengthScales));
}

export class GaussianProcess {
  /** Lower Cholesky factor of K = k(X, X) + (σ_n² + jitter) I, row-major. */
  private readonly L: Float64Array;
  /** α = K⁻¹ y. */
  private readonly alpha: Float64Array;
  readonly n: number;
  /** Diagonal jitter that had to be added for a stable factorization (0 normally). */
  readonly jitter: number;
  private readonly logDet: number;
  private readonly quad: number;

  constructor(
    readonly X: readonly (readonly number[])[],
    readonly y: readonly number[],
    readonly hyper: GpHyper,
  ) {
    const n = X.length;
    this.n = n;
    if (y.length !== n) throw new RangeError(`GP: ${n} inputs but ${y.length} targets`);
    const base: number[][] = [];
    for (let i = 0; i < n; i++) {
      const row = new Array<number>(n);
      for (let j = 0; j < n; j++) row[j] = j < i ? base[j]![i]! : kernel(hyper, X[i]!, X[j]!);
      row[i] = row[i]! + hyper.noiseVariance;
      base.push(row);
    }
    let jitter = 0;
    let chol: CholeskyDecomposition | null = null;
    for (let attempt = 0; attempt < 8; attempt++) {
      const m = new Matrix(base.map((r, i) => r.map((v, j) => (i === j ? v + jitter : v))));
      const c = new CholeskyDecomposition(m);
      if (c.isPositiveDefinite()) {
        chol = c;
        break;
      }
      jitter = jitter === 0 ? 1e-10 * Math.max(hyper.signalVariance, 1e-12) : jitter * 10;
    }
    if (chol === null) throw new Error("GP: the kernel matrix is not positive definite");
    this.jitter = jitter;
    const Lm = chol.lowerTriangularMatrix;
    this.L = new Float64Array(n * n);
    let logDet = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) this.L[i * n + j] = Lm.get(i, j);
      logDet += 2 * Math.log(this.L[i * n + i]!);
    }
    this.logDet = logDet;
    const sol = chol.solve(Matrix.columnVector([...y]));
    this.alpha = new Float64Array(n);
    let quad = 0;
    for (let i = 0; i < n; i++) {
      this.alpha[i] = sol.get(i, 0);
      quad += y[i]! * this.alpha[i]!;
    }
    this.quad = quad;
  }

  /** log p(y | X, θ) = -½ yᵀK⁻¹y - ½ log|K| - n/2 log 2π. */
  logMarginalLikelihood(): number {
    return -0.5 * this.quad - 0.5 * this.logDet - 0.5 * this.n * Math.log(2 * Math.PI);
  }

  /** yᵀK⁻¹y and log|K| (for profiling the signal variance). */
  terms(): { quad: number; logDet: number } {
    return { quad: this.quad, logDet: this.logDet };
  }

  /** Posterior mean and variance of the latent function at x (noise-free). */
  predict(x: readonly number[]): { mean: number; variance: number } {
    const n = this.n;
    const ks = new Float64Array(n);
    let mean = 0;
    for (let i = 0; i < n; i++) {
      ks[i] = kernel(this.hyper, x, this.X[i]!);
      mean += ks[i]! * this.alpha[i]!;
    }
    // v = L⁻¹ k* by forward substitution; variance = k(x,x) - vᵀv.
    let vv = 0;
    const v = ks; // overwritten in place
    for (let i = 0; i < n; i++) {
      let s = v[i]!;
      for (let j = 0; j < i; j++) s -= this.L[i * n + j]! * v[j]!;
      v[i] = s / this.L[i * n + i]!;
      vv += v[i]! * v[i]!;
    }
    const variance = Math.max(0, this.hyper.signalVariance - vv);
    return { mean, variance };
  }
}

export interface SurrogateOptions {
  kernel?: KernelKind;
  /** Length scales to try (per feature-group coordinate search starts from the best shared one). */
  lengthGrid?: readonly number[];
  /** Noise-to-signal variance ratios to try. */
  noiseGrid?: readonly number[];
  /**
   * Feature → group (e.g. the parameter a one-hot column belongs to). With groups, each group's
   * length scale is refined separately (coordinate search over the grid, two sweeps); without,
   * one length scale is shared by every feature.
   */
  groups?: readonly number[];
}

export const DEFAULT_LENGTH_GRID = [0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2.5, 4];
export const DEFAULT_NOISE_GRID = [1e-6, 1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.25, 0.5];

/** A GP fitted to standardized targets, with the standardization to map predictions back. */
export interface Surrogate {
  gp: GaussianProcess;
  /** Mean and standard deviation used to standardize the targets. */
  yMean: number;
  yStd: number;
  /** Standardized targets. */
  z: number[];
  logLik: number;
}

/** One hyperparameter candidate: length scales, noise ratio, its profiled log-likelihood and signal variance. */
interface Candidate {
  ls: number[];
  g: number;
  ll: number;
  s2: number;
}

type Profile = (ls: number[], g: number) => { ll: number; s2: number };

/** Targets shifted to mean 0 and scaled to standard deviation 1 (scale 1 when y is constant). */
function standardize(y: readonly number[]): { yMean: number; yStd: number; z: number[] } {
  const n = y.length;
  const yMean = y.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(y.reduce((s, v) => s + (v - yMean) * (v - yMean), 0) / n);
  const yStd = sd > 1e-12 * Math.max(1, Math.abs(yMean)) ? sd : 1;
  const z = y.map((v) => (v - yMean) / yStd);
  return { yMean, yStd, z };
}

/** The best candidate with one length scale shared by every dimension, over the full grid. */
function bestIsotropic(
  profiled: Profile,
  d: number,
  lengthGrid: readonly number[],
  noiseGrid: readonly number[],
): Candidate {
  let best: Candidate = { ls: new Array<number>(d).fill(lengthGrid[0]!), g: noiseGrid[0]!, ll: -Infinity, s2: 1 };
  for (const l of lengthGrid) {
    for (const g of noiseGrid) {
      const ls = new Array<number>(d).fill(l);
      const r = profiled(ls, g);
      if (r.ll > best.ll) best = { ls, g, ll: r.ll, s2: r.s2 };
    }
  }
  return best;
}

/**
 * Coordinate ascent from `start`: up to two sweeps, each trying every length scale for each group
 * of dimensions in turn and then every noise ratio; stops early when a sweep improves nothing.
 */
function refineByGroup(
  profiled: Profile,
  start: Candidate,
  groups: readonly number[],
  lengthGrid: readonly number[],
  noiseGrid: readonly number[],
): Candidate {
  let best = start;
  const ids = [...new Set(groups)];
  for (let sweep = 0; sweep < 2; sweep++) {
    let improved = false;
    for (const id of ids) {
      for (const l of lengthGrid) {
        const ls = best.ls.map((v, k) => (groups[k] === id ? l : v));
        if (ls.every((v, k) => v === best.ls[k])) continue;
        for (const g of [best.g]) {
          const r = profiled(ls, g);
          if (r.ll > best.ll + 1e-9) {
            best = { ls, g, ll: r.ll, s2: r.s2 };
            improved = true;
          }
        }
      }
    }
    // Re-choose the noise for the refined length scales.
    for (const g of noiseGrid) {
      if (g === best.g) continue;
      const r = profiled(best.ls, g);
      if (r.ll > best.ll + 1e-9) {
        best = { ...best, g, ll: r.ll, s2: r.s2 };
        improved = true;
      }
    }
    if (!improved) break;
  }
  return best;
}

/**
 * Fits a GP to (X, y): y is standardized; for every candidate (length scales, noise ratio g) the
 * correlation matrix R + gI is factorized, the signal variance takes its maximum-likelihood value
 * σ̂² = zᵀ(R + gI)⁻¹z / n, and the candidate with the largest profiled log marginal likelihood
 * -n/2 (1 + log 2π + log σ̂²) - ½ log|R + gI| wins.
 */
export function fitSurrogate(
  X: readonly (readonly number[])[],
  y: readonly number[],
  opts: SurrogateOptions = {},
): Surrogate {
  const n = y.length;
  if (n === 0) throw new RangeError("fitSurrogate: no data");
  const d = X[0]!.length;
  const kind = opts.kernel ?? "matern52";
  const lengthGrid = opts.lengthGrid ?? DEFAULT_LENGTH_GRID;
  const noiseGrid = opts.noiseGrid ?? DEFAULT_NOISE_GRID;
  const { yMean, yStd, z } = standardize(y);

  const profiled = (ls: number[], g: number): { ll: number; s2: number } => {
    const gp = new GaussianProcess(X, z, { kernel: kind, lengthScales: ls, signalVariance: 1, noiseVariance: g });
    const { quad, logDet } = gp.terms();
    const s2 = Math.max(quad / n, 1e-12);
    return { ll: -0.5 * n * (1 + Math.log(2 * Math.PI) + Math.log(s2)) - 0.5 * logDet, s2 };
  };

  let best = bestIsotropic(profiled, d, lengthGrid, noiseGrid);
  const groups = opts.groups;
  if (groups !== undefined && groups.length === d && n >= 3)
    best = refineByGroup(profiled, best, groups, lengthGrid, noiseGrid);
  const gp = new GaussianProcess(X, z, {
    kernel: kind,
    lengthScales: best.ls,
    signalVariance: best.s2,
    noiseVariance: best.g * best.s2,
  });
  return { gp, yMean, yStd, z, logLik: best.ll };
}

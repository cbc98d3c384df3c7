// Inter-arrival samplers (docs/behavior.md "Arrivals"). Every sampler returns an integer IAT ≥ 1 tick:
// IAT = max(1, trunc(x)); an infinite draw yields Infinity, which ends the client at any horizon.

import type { Rng } from "../../engine/rng.js";
import type { Logger } from "../../util/log.js";
import { gammaFn, lnGamma } from "./gammaFn.js";

export interface ArrivalSampler {
  /** Next inter-arrival time in ticks (integer ≥ 1, or Infinity). */
  next(rng: Rng): number;
}

function toIat(x: number): number {
  return x >= 1 ? Math.trunc(x) : 1;
}

export class ConstantArrival implements ArrivalSampler {
  readonly iat: number;
  constructor(lambda: number) {
    this.iat = toIat(1 / lambda);
  }
  next(): number {
    return this.iat;
  }
}

export class PoissonArrival implements ArrivalSampler {
  constructor(private readonly lambda: number) {}
  next(rng: Rng): number {
    return toIat(rng.expFloat64() / this.lambda);
  }
}

/**
 * Gamma(k, θ) by Marsaglia–Tsang; for k < 1 draws U first, then Gamma(k+1, θ)·U^{1/k}
 * (the reference's structure).
 */
export function sampleGamma(rng: Rng, k: number, theta: number): number {
  if (k < 1) {
    const u = rng.float64();
    return sampleGamma(rng, k + 1, theta) * Math.pow(u, 1 / k);
  }
  const d = k - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let z: number;
    let v: number;
    do {
      z = rng.normFloat64();
      v = 1 + c * z;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.float64();
    const z2 = z * z;
    if (u < 1 - 0.0331 * z2 * z2) return d * v * theta;
    if (Math.log(u) < z2 / 2 + d * (1 - v + Math.log(v))) return d * v * theta;
  }
}

export class GammaArrival implements ArrivalSampler {
  constructor(
    readonly shape: number,
    readonly scale: number,
  ) {}
  next(rng: Rng): number {
    return toIat(sampleGamma(rng, this.shape, this.scale));
  }
}

/** cv of a Weibull with shape k: √(Γ(1+2/k)/Γ(1+1/k)² − 1), computed in log space. */
export function weibullCv(k: number): number {
  return Math.sqrt(Math.expm1(lnGamma(1 + 2 / k) - 2 * lnGamma(1 + 1 / k)));
}

/** Bisection on k ∈ [0.1, 100] (≤ 100 iterations, tolerance 0.001) as the reference does. */
export function weibullShapeFromCv(target: number): { shape: number; converged: boolean } {
  let lo = 0.1;
  let hi = 100;
  let mid = (lo + hi) / 2;
  for (let i = 0; i < 100; i++) {
    mid = (lo + hi) / 2;
    const cv = weibullCv(mid);
    if (Math.abs(cv - target) < 0.001) return { shape: mid, converged: true };
    if (cv > target) lo = mid;
    else hi = mid;
  }
  return { shape: mid, converged: false };
}

export class WeibullArrival implements ArrivalSampler {
  constructor(
    readonly shape: number,
    readonly scale: number,
  ) {}
  next(rng: Rng): number {
    let u = rng.float64();
    if (u === 0) u = Number.MIN_VALUE;
    return toIat(this.scale * Math.pow(-Math.log(u), 1 / this.shape));
  }
}

/**
 * cv as the samplers read it: absent, non-positive or NaN → 1 (invalid cohort cvs fall back,
 * docs/behavior.md#w10).
 */
function effectiveCv(cv: number | undefined): number {
  return cv !== undefined && cv > 0 ? cv : 1;
}

/**
 * Builds the sampler for a validated process. `lambda` is in requests per tick.
 * `label` names the client in warnings.
 */
export function buildArrivalSampler(
  process: string,
  cvIn: number | undefined,
  lambda: number,
  label: string,
  logger?: Logger,
): ArrivalSampler {
  switch (process) {
    case "constant":
      return new ConstantArrival(lambda);
    case "gamma": {
      const cv = effectiveCv(cvIn);
      const shape = 1 / (cv * cv);
      if (shape < 0.01) {
        logger?.warn(`${label}: gamma arrival cv ${cv} gives shape ${shape} < 0.01; using poisson arrivals instead`);
        return new PoissonArrival(lambda);
      }
      return new GammaArrival(shape, (cv * cv) / lambda);
    }
    case "weibull": {
      const cv = effectiveCv(cvIn);
      const { shape, converged } = weibullShapeFromCv(cv);
      if (!converged) {
        logger?.warn(`${label}: weibull shape for cv ${cv} did not converge; using shape ${shape}`);
      }
      return new WeibullArrival(shape, 1 / lambda / gammaFn(1 + 1 / shape));
    }
    default:
      // poisson (validation guarantees the process is known).
      return new PoissonArrival(lambda);
  }
}

// Token-length samplers (docs/behavior.md "Lengths") with the reference's clamping, rounding and floors.

import type { Rng } from "../../engine/rng.js";
import type { DistSpec } from "../spec/types.js";
import { goInt, roundHalfAway } from "../../util/parse.js";

export interface LengthSampler {
  sample(rng: Rng): number;
  /** Smallest value the sampler can return (negative values are rejected for lengths). */
  readonly lowest: number;
  /** Largest value it can return (Infinity when unbounded). */
  readonly highest: number;
}

/** A distribution that cannot be built; the caller adds the client/role prefix. */
export class SamplerBuildError extends Error {}

function requireParam(d: DistSpec, name: string): number {
  const v = d.params[name];
  if (v === undefined) throw new SamplerBuildError(`distribution requires parameter "${name}"`);
  return v;
}

/** Floors at 1 and maps NaN (Go's int conversion of NaN then floor) to 1. */
function floorOne(x: number): number {
  return x >= 1 ? x : 1;
}

class GaussianSampler implements LengthSampler {
  readonly lowest: number;
  readonly highest: number;
  constructor(
    private readonly mean: number,
    private readonly std: number,
    private readonly min: number,
    private readonly max: number,
  ) {
    this.lowest = min === max ? min : 1;
    this.highest = min === max ? min : floorOne(Math.max(min, max));
  }
  sample(rng: Rng): number {
    if (this.min === this.max) return this.min;
    let x = this.mean + this.std * rng.normFloat64();
    x = Math.max(this.min, x);
    x = Math.min(this.max, x);
    return floorOne(roundHalfAway(x));
  }
}

class ExponentialSampler implements LengthSampler {
  readonly lowest = 1;
  readonly highest = Infinity;
  constructor(private readonly mean: number) {}
  sample(rng: Rng): number {
    return floorOne(roundHalfAway(this.mean * rng.expFloat64()));
  }
}

class ParetoLognormalSampler implements LengthSampler {
  readonly lowest = 1;
  readonly highest = Infinity;
  constructor(
    private readonly alpha: number,
    private readonly xm: number,
    private readonly mu: number,
    private readonly sigma: number,
    private readonly mixWeight: number,
  ) {}
  sample(rng: Rng): number {
    let x: number;
    if (rng.float64() < this.mixWeight) {
      let u = rng.float64();
      if (u === 0) u = Number.MIN_VALUE;
      x = this.xm / Math.pow(u, 1 / this.alpha);
    } else {
      x = Math.exp(this.mu + this.sigma * rng.normFloat64());
    }
    if (!Number.isFinite(x)) return 1;
    return floorOne(roundHalfAway(x));
  }
}

class ConstantSampler implements LengthSampler {
  readonly lowest: number;
  readonly highest: number;
  constructor(private readonly value: number) {
    this.lowest = value;
    this.highest = value;
  }
  sample(): number {
    return this.value;
  }
}

class EmpiricalSampler implements LengthSampler {
  readonly lowest: number;
  readonly highest: number;
  constructor(
    private readonly values: Float64Array,
    private readonly cumulative: Float64Array,
  ) {
    let lo = values.length === 0 ? 1 : Infinity;
    let hi = values.length === 0 ? 1 : -Infinity;
    for (const v of values) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    this.lowest = lo;
    this.highest = hi;
  }
  sample(rng: Rng): number {
    const n = this.values.length;
    if (n === 0) return 1;
    if (n === 1) return this.values[0]!;
    const u = rng.float64();
    // First bin whose cumulative ≥ u (binary search; cumulatives are non-decreasing).
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! >= u) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }
}

const INT_KEY = /^[+-]?\d+$/;

function buildEmpirical(d: DistSpec): LengthSampler {
  const keys = Object.keys(d.params);
  if (keys.length === 0) {
    if (d.file === "") throw new SamplerBuildError("empirical distribution requires a file path or inline params");
    // The `file` key is reserved and never read (docs/behavior.md "Lengths").
    throw new SamplerBuildError("empirical distribution has no valid bins");
  }
  const bins: { value: number; weight: number; key: string }[] = [];
  const seen = new Map<number, string>();
  for (const key of keys) {
    if (!INT_KEY.test(key)) {
      throw new SamplerBuildError(
        `empirical PDF key "${key}" is not an integer: strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`,
      );
    }
    const big = BigInt(key);
    if (big > 9223372036854775807n || big < -9223372036854775808n) {
      throw new SamplerBuildError(
        `empirical PDF key "${key}" is not an integer: strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`,
      );
    }
    const value = Number(big);
    const dup = seen.get(value);
    // Deviation from the reference (docs/behavior.md#w22): colliding keys ("012" and "12") are
    // rejected, not resolved at random.
    if (dup !== undefined)
      throw new SamplerBuildError(`empirical PDF keys "${dup}" and "${key}" denote the same value ${value}`);
    seen.set(value, key);
    bins.push({ value, weight: d.params[key]!, key });
  }
  bins.sort((a, b) => a.value - b.value);
  let total = 0;
  for (const b of bins) total += b.weight;
  const values: number[] = [];
  const cum: number[] = [];
  let acc = 0;
  for (const b of bins) {
    if (b.weight <= 0) continue;
    acc += b.weight / total;
    values.push(b.value);
    cum.push(acc);
  }
  if (cum.length > 0) cum[cum.length - 1] = 1.0;
  // NaN weights (unvalidated contexts) leave NaN cumulatives that never match; the search then
  // lands on the last bin, whose cumulative is forced to 1.
  return new EmpiricalSampler(Float64Array.from(values), Float64Array.from(cum));
}

/** Builds a sampler; throws SamplerBuildError with the reference's messages. */
export function buildLengthSampler(d: DistSpec): LengthSampler {
  switch (d.type) {
    case "gaussian": {
      const mean = requireParam(d, "mean");
      const std = requireParam(d, "std_dev");
      const min = goInt(requireParam(d, "min"));
      const max = goInt(requireParam(d, "max"));
      return new GaussianSampler(mean, std, min, max);
    }
    case "exponential":
      return new ExponentialSampler(requireParam(d, "mean"));
    case "pareto_lognormal":
      return new ParetoLognormalSampler(
        requireParam(d, "alpha"),
        requireParam(d, "xm"),
        requireParam(d, "mu"),
        requireParam(d, "sigma"),
        requireParam(d, "mix_weight"),
      );
    case "constant":
      return new ConstantSampler(floorOne(goInt(requireParam(d, "value"))));
    case "empirical":
      return buildEmpirical(d);
    default:
      throw new SamplerBuildError(`unknown distribution type "${d.type}"`);
  }
}

/** Reason ratio (docs/behavior.md "Lengths"): sample read as a percentage, clamped to [0, 1]. */
export class ReasonRatioSampler {
  constructor(private readonly inner: LengthSampler) {}
  sample(rng: Rng): number {
    const r = this.inner.sample(rng) / 100;
    return r < 0 ? 0 : r > 1 ? 1 : r;
  }
}

// Time-varying arrival rates (docs/behavior.md "Rate schedules"): arrivals of a client with a rate
// schedule come from its arrival process run at unit rate in "operational time" (expected
// arrivals so far), mapped to simulated time through the inverse of the cumulative rate Λ(t).
// For Poisson arrivals this is the time-rescaling construction of an inhomogeneous Poisson
// process; it draws from the client's seeded stream exactly as the constant-rate sampler does.

import type { Rng } from "../../engine/rng.js";
import type { ArrivalSampler } from "../samplers/arrival.js";
import type { RatePointSpec } from "../spec/types.js";

const US_PER_S = 1e6;

/** A piecewise-constant or piecewise-linear rate over time, in requests per tick. */
export class RateCurve {
  /** Segment starts in ticks; the last segment is open-ended at the last point's rate. */
  private readonly starts: Float64Array;
  private readonly rates: Float64Array;
  /** Λ at each segment start (expected arrivals since 0). */
  private readonly cum: Float64Array;

  constructor(
    points: readonly RatePointSpec[],
    private readonly linear: boolean,
  ) {
    const n = points.length;
    this.starts = new Float64Array(n);
    this.rates = new Float64Array(n);
    this.cum = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      this.starts[k] = points[k]!.at_s * US_PER_S;
      this.rates[k] = points[k]!.rate / US_PER_S;
      if (k > 0) this.cum[k] = this.cum[k - 1]! + this.segmentIntegral(k - 1);
    }
  }

  /** The rate at tick t, requests per tick. */
  rateAt(t: number): number {
    const k = this.segmentOf(t);
    const a = this.rates[k]!;
    if (!this.linear || k + 1 >= this.rates.length) return a;
    const len = this.starts[k + 1]! - this.starts[k]!;
    return a + ((this.rates[k + 1]! - a) * (t - this.starts[k]!)) / len;
  }

  /** Λ(t): expected arrivals in [0, t). */
  cumulative(t: number): number {
    const k = this.segmentOf(t);
    const x = t - this.starts[k]!;
    const a = this.rates[k]!;
    if (!this.linear || k + 1 >= this.rates.length) return this.cum[k]! + a * x;
    const b = (this.rates[k + 1]! - a) / (this.starts[k + 1]! - this.starts[k]!);
    return this.cum[k]! + a * x + (b * x * x) / 2;
  }

  /** The earliest tick t with Λ(t) = L (Infinity when the rate stays 0 before L is reached). */
  inverse(L: number): number {
    const n = this.starts.length;
    let k = n - 1;
    while (k > 0 && this.cum[k]! > L) k--;
    // Skip zero-rate stretches that end exactly at L: the arrival falls where the rate resumes.
    while (k + 1 < n && this.cum[k + 1]! <= L) k++;
    const d = L - this.cum[k]!;
    const a = this.rates[k]!;
    if (!this.linear || k + 1 >= n) return a > 0 ? this.starts[k]! + d / a : d === 0 ? this.starts[k]! : Infinity;
    const b = (this.rates[k + 1]! - a) / (this.starts[k + 1]! - this.starts[k]!);
    // a·x + b·x²/2 = d, solved in the form that stays exact when b is near 0 or negative.
    const den = a + Math.sqrt(Math.max(0, a * a + 2 * b * d));
    const x = d === 0 ? 0 : den > 0 ? (2 * d) / den : Math.sqrt((2 * d) / b);
    return this.starts[k]! + x;
  }

  /** Index of the segment holding tick t. */
  private segmentOf(t: number): number {
    let k = this.starts.length - 1;
    while (k > 0 && this.starts[k]! > t) k--;
    return k;
  }

  private segmentIntegral(k: number): number {
    const len = this.starts[k + 1]! - this.starts[k]!;
    const a = this.rates[k]!;
    return this.linear ? ((a + this.rates[k + 1]!) * len) / 2 : a * len;
  }
}

/**
 * A client's arrivals under a rate schedule. `unit` is the client's arrival process at one
 * request per second; its gaps advance operational time. Stateful: one per client stream.
 */
export class ScheduledArrival implements ArrivalSampler {
  private operational = 0;
  private t = 0;

  constructor(
    private readonly curve: RateCurve,
    private readonly unit: ArrivalSampler,
  ) {}

  next(rng: Rng): number {
    const gap = this.unit.next(rng);
    if (gap === Infinity) return Infinity;
    this.operational += gap / US_PER_S;
    const at = Math.floor(this.curve.inverse(this.operational));
    if (at === Infinity) return Infinity;
    // Arrivals within one tick share it; times never go back.
    const iat = at > this.t ? at - this.t : 0;
    this.t += iat;
    return iat;
  }
}

/** The tick from which a schedule sends nothing (its last rate is 0), or Infinity. */
export function scheduleEnd(points: readonly RatePointSpec[]): number {
  const last = points[points.length - 1];
  return last !== undefined && last.rate === 0 ? last.at_s * US_PER_S : Infinity;
}

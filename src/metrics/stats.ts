// Statistics with BLIS's exact evaluation order (docs/behavior.md "The metrics block").

/** Sorts ascending in place and returns the array. */
export function sortAsc(v: Float64Array): Float64Array {
  return v.sort();
}

/** Mean in milliseconds of tick values: ascending-order sum / n / 1000. */
export function meanMs(sorted: Float64Array): number {
  if (sorted.length === 0) return 0;
  let s = 0;
  for (let i = 0; i < sorted.length; i++) s += sorted[i]!;
  return s / sorted.length / 1000;
}

/** Percentile in milliseconds of sorted tick values with linear interpolation. */
export function percentileMs(sorted: Float64Array, p: number): number {
  return percentileIn(sorted, p, 1000);
}

/** Percentile of sorted tick values with linear interpolation, in units of `ticks` ticks (1 = µs). */
export function percentileIn(sorted: Float64Array, p: number, ticks: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const r = (p / 100) * (n - 1);
  const lo = Math.floor(r);
  const hi = Math.ceil(r);
  if (lo === hi) return sorted[lo]! / ticks;
  return sorted[lo]! / ticks + ((sorted[hi]! - sorted[lo]!) * (r - lo)) / ticks;
}

/** Values with multiplicities, sorted ascending (pooled inter-token gaps). */
export class Histogram {
  readonly values: Float64Array;
  readonly cumulative: Float64Array;
  readonly count: number;
  constructor(counts: Map<number, number>) {
    const vals = Float64Array.from(counts.keys()).sort();
    this.values = vals;
    this.cumulative = new Float64Array(vals.length);
    let c = 0;
    for (let i = 0; i < vals.length; i++) {
      c += counts.get(vals[i]!)!;
      this.cumulative[i] = c;
    }
    this.count = c;
  }

  /** Value at rank k (0-based) of the expanded sorted list. */
  at(k: number): number {
    let lo = 0;
    let hi = this.values.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > k) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }

  meanMs(): number {
    if (this.count === 0) return 0;
    let s = 0;
    let prev = 0;
    for (let i = 0; i < this.values.length; i++) {
      const c = this.cumulative[i]! - prev;
      prev = this.cumulative[i]!;
      s += this.values[i]! * c;
    }
    return s / this.count / 1000;
  }

  percentileMs(p: number): number {
    const n = this.count;
    if (n === 0) return 0;
    const r = (p / 100) * (n - 1);
    const lo = Math.floor(r);
    const hi = Math.ceil(r);
    const vlo = this.at(lo);
    if (lo === hi) return vlo / 1000;
    const vhi = this.at(hi);
    return vlo / 1000 + ((vhi - vlo) * (r - lo)) / 1000;
  }
}

/** Raw-tick distribution used by fitness and per-SLO output. */
export interface Distribution {
  count: number;
  min: number;
  max: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
}

export function distribution(sorted: Float64Array): Distribution {
  const n = sorted.length;
  if (n === 0) return { count: 0, min: 0, max: 0, mean: 0, p50: 0, p95: 0, p99: 0 };
  let s = 0;
  for (let i = 0; i < n; i++) s += sorted[i]!;
  const pct = (p: number): number => {
    if (n === 1) return sorted[0]!;
    const r = (p / 100) * (n - 1);
    const lo = Math.floor(r);
    const hi = Math.ceil(r);
    return sorted[lo]! + (r - lo) * (sorted[hi]! - sorted[lo]!);
  };
  return { count: n, min: sorted[0]!, max: sorted[n - 1]!, mean: s / n, p50: pct(50), p95: pct(95), p99: pct(99) };
}

/**
 * Jain fairness index over per-key throughputs, summed in sorted key order (docs/behavior.md
 * "Output, in order", item 6).
 */
export function jainIndex(x: ReadonlyMap<string, number>): number {
  if (x.size === 0) return 0;
  const keys = [...x.keys()].sort();
  let s = 0;
  let s2 = 0;
  for (const k of keys) {
    const v = x.get(k)!;
    s += v;
    s2 += v * v;
  }
  if (s2 === 0) return 1.0;
  return (s * s) / (keys.length * s2);
}

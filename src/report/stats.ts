// Numeric helpers for report charts: CDF points, histogram bins and series thinning. Everything
// here reduces per-request data to a bounded number of points, so a report's size does not grow
// with the number of requests.

/** A value rounded to 6 significant digits (keeps the embedded chart data small). */
export function r6(v: number): number {
  if (!Number.isFinite(v) || v === 0) return Number.isFinite(v) ? v : 0;
  return Number(v.toPrecision(6));
}

/** Sorted copy (ascending). */
export function sortedOf(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values as ArrayLike<number>).sort();
}

/** Linear-interpolated quantile (p in [0, 1]) of sorted values; 0 when empty. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const r = p * (n - 1);
  const lo = Math.floor(r);
  const hi = Math.ceil(r);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (r - lo);
}

export interface XY {
  x: number[];
  y: number[];
}

/**
 * Empirical CDF of sorted values, scaled by `scale`: (value, fraction ≤ value). Runs with more
 * than `maxPoints` values are thinned to evenly spaced ranks (the minimum and maximum are kept).
 */
export function cdfPoints(sorted: ArrayLike<number>, scale: number, maxPoints = 400): XY {
  const n = sorted.length;
  const x: number[] = [];
  const y: number[] = [];
  if (n === 0) return { x, y };
  const step = n <= maxPoints ? 1 : n / maxPoints;
  let last = -1;
  for (let k = 0; ; k++) {
    let i = Math.round(k * step);
    if (i >= n - 1 || k * step >= n - 1) i = n - 1;
    if (i !== last) {
      x.push(r6(sorted[i]! * scale));
      y.push(r6((i + 1) / n));
      last = i;
    }
    if (i === n - 1) break;
  }
  return { x, y };
}

/** CDF of values with multiplicities (sorted ascending values, matching counts). */
export function weightedCdfPoints(
  values: ArrayLike<number>,
  counts: ArrayLike<number>,
  scale: number,
  maxPoints = 400,
): XY {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  const x: number[] = [];
  const y: number[] = [];
  if (total === 0) return { x, y };
  // Keep a point whenever the cumulative fraction advanced by 1/maxPoints, plus the last one.
  let cum = 0;
  let nextAt = 0;
  for (let i = 0; i < values.length; i++) {
    cum += counts[i]!;
    const f = cum / total;
    if (f >= nextAt || i === values.length - 1) {
      x.push(r6(values[i]! * scale));
      y.push(r6(f));
      nextAt = f + 1 / maxPoints;
    }
  }
  return { x, y };
}

/** A "nice" step (1, 2 or 5 × 10^k) close to span / target. */
export function niceStep(span: number, target: number): number {
  if (!(span > 0)) return 1;
  const raw = span / target;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / mag;
  const m = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
  return m * mag;
}

export interface Bins {
  /** Lower edge of each bin (scaled units). */
  edges: number[];
  width: number;
  /** Values at or above this (scaled) fall in the last, open-ended bin; null when none do. */
  overflowFrom: number | null;
}

/**
 * Bins covering [0, hi] (scaled, values ≥ 0) with a nice width, about `target` of them. `hi` is normally the
 * 99th percentile: the rare slower values are counted in a last "≥ hi" bin so that a long tail
 * does not squash the body of the distribution into one bar.
 */
export function makeBins(sortedScaled: ArrayLike<number>, target = 40): Bins {
  const n = sortedScaled.length;
  if (n === 0) return { edges: [0], width: 1, overflowFrom: null };
  const max = sortedScaled[n - 1]!;
  const p99 = quantile(sortedScaled, 0.99);
  let hi = p99 > 0 && max > p99 * 1.25 ? p99 : max;
  if (!(hi > 0)) hi = 1;
  const width = niceStep(hi, target);
  const count = Math.floor(hi / width + 1e-9) + 1;
  const edges: number[] = [];
  for (let k = 0; k < count; k++) edges.push(r6(k * width));
  const top = count * width;
  return { edges, width: r6(width), overflowFrom: max >= top ? r6(top) : null };
}

/** Counts per bin (plus the overflow bin when `bins.overflowFrom` is set). */
export function binCounts(bins: Bins, valuesScaled: ArrayLike<number>, weights?: ArrayLike<number>): number[] {
  const nb = bins.edges.length + (bins.overflowFrom !== null ? 1 : 0);
  const out = new Array<number>(nb).fill(0);
  for (let i = 0; i < valuesScaled.length; i++) {
    let b = Math.floor(valuesScaled[i]! / bins.width);
    if (b < 0) b = 0;
    if (b >= nb) b = nb - 1;
    if (b >= bins.edges.length && bins.overflowFrom === null) b = bins.edges.length - 1;
    out[b] = out[b]! + (weights === undefined ? 1 : weights[i]!);
  }
  return out;
}

/** Bin labels: lower edges, and "≥ x" for the overflow bin. */
export function binLabels(bins: Bins, fmt: (v: number) => string): string[] {
  const out = bins.edges.map(fmt);
  if (bins.overflowFrom !== null) out.push(`≥ ${fmt(bins.overflowFrom)}`);
  return out;
}

export type Thinning = "mean" | "last";

/**
 * Thins a series to at most `maxPoints` by averaging (gauges) or keeping the last value
 * (cumulative counters) of consecutive buckets. Returns the input when already small.
 */
export function thin(values: readonly number[], maxPoints: number, how: Thinning): number[] {
  const n = values.length;
  if (n <= maxPoints) return values.map(r6);
  const b = Math.ceil(n / maxPoints);
  const out: number[] = [];
  for (let s = 0; s < n; s += b) {
    const e = Math.min(n, s + b);
    if (how === "last") out.push(r6(values[e - 1]!));
    else {
      let sum = 0;
      for (let i = s; i < e; i++) sum += values[i]!;
      out.push(r6(sum / (e - s)));
    }
  }
  return out;
}

/** Bucket size `thin` uses for a series of n points (1 = unchanged). */
export function thinFactor(n: number, maxPoints: number): number {
  return n <= maxPoints ? 1 : Math.ceil(n / maxPoints);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

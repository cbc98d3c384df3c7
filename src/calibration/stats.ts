// Per-metric statistics of `blis calibrate` (docs/calibration.md "Calibrate"): means,
// interpolated percentiles, errors, MAPE, bias direction, Pearson r and the quality label.
// Pure functions over paired vectors (real r_i, simulated s_i).

export type BiasDirection = "" | "over-predict" | "under-predict" | "neutral";
export type Quality = "excellent" | "good" | "fair" | "poor";

/** Workload-level aggregates; errors are sim − real, percent errors |error| / real (0 if real ≤ 0). */
export interface WorkloadLevel {
  real_mean: number;
  sim_mean: number;
  mean_error: number;
  mean_percent_error: number;
  real_median: number;
  sim_median: number;
  median_error: number;
  median_percent_error: number;
  real_p50: number;
  sim_p50: number;
  p50_error: number;
  p50_percent_error: number;
  real_p90: number;
  sim_p90: number;
  p90_error: number;
  p90_percent_error: number;
  real_p95: number;
  sim_p95: number;
  p95_error: number;
  p95_percent_error: number;
  real_p99: number;
  sim_p99: number;
  p99_error: number;
  p99_percent_error: number;
}

/** Request-level prediction quality. */
export interface RequestLevel {
  /** Mean absolute percentage error, as a fraction. */
  mape: number;
  pearson_r: number;
  bias_direction: BiasDirection;
  quality: Quality;
}

export interface MetricComparison {
  workload_level: WorkloadLevel;
  request_level: RequestLevel;
  count: number;
}

/** Real and simulated values of one metric, index-aligned (one entry per request). */
export interface PairedValues {
  real: number[];
  sim: number[];
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Percentile of ascending values, linear interpolation at rank p/100·(n−1); 0 when empty. */
export function percentileSorted(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  if (n === 1) return sorted[0]!;
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  if (lo === hi) return sorted[lo]!;
  return sorted[lo]! + (rank - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Percentile of unsorted values (sorts a copy). */
export function percentile(xs: readonly number[], p: number): number {
  return percentileSorted(
    [...xs].sort((a, b) => a - b),
    p,
  );
}

/** |error| / real, or 0 when real ≤ 0. */
export function percentError(error: number, real: number): number {
  return real > 0 ? Math.abs(error) / real : 0;
}

/**
 * MAPE (fraction) over the pairs with r_i ≠ 0, and the sign of Σ(s_i − r_i) over the same pairs.
 * Pairs whose values are not finite are skipped too. No such pair: MAPE 0 and an empty bias.
 */
export function mapeAndBias(
  real: readonly number[],
  sim: readonly number[],
): { mape: number; bias: BiasDirection; used: number } {
  let sum = 0;
  let biasSum = 0;
  let used = 0;
  for (let i = 0; i < real.length; i++) {
    const r = real[i]!;
    const s = sim[i]!;
    if (r === 0 || !Number.isFinite(r) || !Number.isFinite(s)) continue;
    sum += Math.abs(r - s) / r;
    biasSum += s - r;
    used++;
  }
  if (used === 0) return { mape: 0, bias: "", used };
  const bias: BiasDirection = biasSum > 0 ? "over-predict" : biasSum < 0 ? "under-predict" : "neutral";
  return { mape: sum / used, bias, used };
}

export function mape(real: readonly number[], sim: readonly number[]): number {
  return mapeAndBias(real, sim).mape;
}

/**
 * Pearson r = (nΣrs − ΣrΣs) / sqrt((nΣr² − (Σr)²)(nΣs² − (Σs)²)); 0 when n < 3 or when the
 * denominator is not positive (a constant side, or rounding that makes the product negative).
 */
export function pearson(real: readonly number[], sim: readonly number[]): number {
  const n = real.length;
  if (n < 3) return 0;
  let sr = 0;
  let ss = 0;
  let srs = 0;
  let sr2 = 0;
  let ss2 = 0;
  for (let i = 0; i < n; i++) {
    const r = real[i]!;
    const s = sim[i]!;
    sr += r;
    ss += s;
    srs += r * s;
    sr2 += r * r;
    ss2 += s * s;
  }
  const num = n * srs - sr * ss;
  const den = Math.sqrt((n * sr2 - sr * sr) * (n * ss2 - ss * ss));
  if (!(den > 0) || !Number.isFinite(den)) return 0;
  return num / den;
}

export function qualityLabel(mapeValue: number, r: number): Quality {
  if (mapeValue < 0.1 && r > 0.95) return "excellent";
  if (mapeValue < 0.2 && r > 0.85) return "good";
  if (mapeValue < 0.35 && r > 0.7) return "fair";
  return "poor";
}

/** The full comparison of one metric; `pairs` must be non-empty and index-aligned. */
export function compareMetric(pairs: PairedValues): MetricComparison {
  const { real, sim } = pairs;
  if (real.length !== sim.length)
    throw new Error(`compareMetric: ${real.length} real values but ${sim.length} simulated`);
  const rs = [...real].sort((a, b) => a - b);
  const ss = [...sim].sort((a, b) => a - b);
  const realMean = mean(real);
  const simMean = mean(sim);
  const q = (p: number): [number, number, number, number] => {
    const r = percentileSorted(rs, p);
    const s = percentileSorted(ss, p);
    return [r, s, s - r, percentError(s - r, r)];
  };
  const [r50, s50, e50, pe50] = q(50);
  const [r90, s90, e90, pe90] = q(90);
  const [r95, s95, e95, pe95] = q(95);
  const [r99, s99, e99, pe99] = q(99);
  const meanError = simMean - realMean;
  const workload: WorkloadLevel = {
    real_mean: realMean,
    sim_mean: simMean,
    mean_error: meanError,
    mean_percent_error: percentError(meanError, realMean),
    real_median: r50,
    sim_median: s50,
    median_error: e50,
    median_percent_error: pe50,
    real_p50: r50,
    sim_p50: s50,
    p50_error: e50,
    p50_percent_error: pe50,
    real_p90: r90,
    sim_p90: s90,
    p90_error: e90,
    p90_percent_error: pe90,
    real_p95: r95,
    sim_p95: s95,
    p95_error: e95,
    p95_percent_error: pe95,
    real_p99: r99,
    sim_p99: s99,
    p99_error: e99,
    p99_percent_error: pe99,
  };
  const { mape: m, bias } = mapeAndBias(real, sim);
  const r = pearson(real, sim);
  return {
    workload_level: workload,
    request_level: { mape: m, pearson_r: r, bias_direction: bias, quality: qualityLabel(m, r) },
    count: real.length,
  };
}

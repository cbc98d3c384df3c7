// `blis calibrate` as a library (docs/calibration.md "Calibrate"): match the rows of a measured
// trace with the simulated results of its replay, bring both to the client's point of view,
// and compare TTFT, E2E and ITL. Pure: no file I/O (matching in matching.ts, the loaders in
// simResults.ts and itlCsv.ts, the table in calibrateTable.ts).

import { UserError } from "../util/errors.js";
import type { TraceV2 } from "../workload/trace/traceV2.js";
import {
  compareGoodput,
  mergeSloTargets,
  type GoodputComparison,
  type GoodputSample,
  type SloFlagTargets,
} from "./goodput.js";
import type { ItlRows } from "./itlCsv.js";
import { matchAndNormalize, type CalibrationPairs, type MatchedRequest, type Normalization } from "./matching.js";
import type { SimResultEntry } from "./simResults.js";
import { compareMetric, mape, type MetricComparison } from "./stats.js";

export type { SimResultEntry } from "./simResults.js";
export type { ItlRow, ItlRows } from "./itlCsv.js";
export type { BiasDirection, MetricComparison, PairedValues, Quality, RequestLevel, WorkloadLevel } from "./stats.js";
export type { GoodputClass, GoodputComparison, SloFlagTargets, SloTargets } from "./goodput.js";
export {
  matchAndNormalize,
  transferDelayUs,
  type CalibrationPairs,
  type MatchedRequest,
  type Normalization,
} from "./matching.js";

export interface CalibrateOptions {
  /** Rows with request_id below this are warm-up. −1 (default): the header's warm_up_requests. */
  warmupRequests?: number | undefined;
  /** Added to simulated latencies, µs. −1 (default): the header's measured_rtt_ms · 1000, truncated. */
  networkRttUs?: number | undefined;
  /** Transfer delay of 4 bytes per token at this rate; ≤ 0 (default 0) = none. */
  networkBandwidthMbps?: number | undefined;
  /** Threshold of the informational TTFT verdict (MAPE fraction, default 0.15). */
  ttftMapeThreshold?: number | undefined;
  /** The simulated aggregate cache_hit_rate (--sim-metrics), for the KV hit-rate comparison. */
  simCacheHitRate?: number | undefined;
  /** Band of the hit-rate verdict, percentage points (default 5). */
  hitRateTolerancePp?: number | undefined;
  /** Goodput targets from the command line; they override the header's per dimension. */
  sloTargets?: SloFlagTargets | undefined;
}

export const CALIBRATE_DEFAULTS = {
  warmupRequests: -1,
  networkRttUs: -1,
  networkBandwidthMbps: 0,
  ttftMapeThreshold: 0.15,
  hitRateTolerancePp: 5,
} as const;

export interface TraceInfo {
  /** matched + warm-up + unmatched real (a negative-latency row counts twice). */
  num_requests: number;
  warm_up_excluded: number;
  matched_pairs: number;
  token_mismatches: number;
  /** Omitted when 0. */
  itl_dropped?: number;
}

export interface ToleranceVerdict {
  mape: number;
  threshold: number;
  within: boolean;
}

export interface HitRateComparison {
  real_hit_rate: number;
  sim_hit_rate: number;
  /** |sim − real| · 100. */
  abs_error_pp: number;
  tolerance_pp: number;
  within: boolean;
  source: string;
}

export type MetricName = "ttft" | "e2e" | "itl";

export interface CalibrationReport {
  trace_info: TraceInfo;
  /** Keys in sorted order (e2e, itl, ttft); itl only with ITL pairs. */
  metrics: Partial<Record<MetricName, MetricComparison>>;
  config_match: Record<string, never>;
  known_limitations: string[];
  ttft_tolerance?: ToleranceVerdict;
  goodput?: GoodputComparison;
  hit_rate?: HitRateComparison;
}

export const KNOWN_LIMITATIONS: readonly string[] = [
  "The simulator advances in discrete batch steps; a real server's iteration-level continuous batching can make TTFT errors systematic under heavy load.",
  "Simulated prompts use synthetic token IDs, so prefix-cache hits can differ from the server's, especially after evictions.",
  "Speculative decoding on the server changes token timing in ways the sequential decode model does not represent.",
  "Token mismatches compare the server-reported prompt_tokens (when recorded) with the simulated input; on prefix-cached traces they can differ by up to a KV block per request without indicating corrupt data.",
];

export interface BreakdownRow {
  key: string;
  n: number;
  ttftMape: number;
  e2eMape: number;
}

/** What the report leaves out: for stderr logging. */
export interface CalibrationDetails {
  normalization: Normalization;
  unmatchedReal: number;
  unmatchedSim: number;
  negativeLatency: number;
  itlDroppedIds: number[];
  bySloClass: BreakdownRow[];
  byModel: BreakdownRow[];
  /** Warnings (skipped comparisons, duplicate result IDs). */
  notes: string[];
}

function checkFinite(flag: string, v: number, min: number | null): void {
  if (!Number.isFinite(v) || (min !== null && v < min)) {
    throw new UserError(`${flag} must be a finite number${min !== null ? ` >= ${min}` : ""}, got ${v}`);
  }
}

/** Option checks, with the command-line flag names; run before any work. */
export function validateCalibrateOptions(opts: CalibrateOptions): void {
  const w = opts.warmupRequests ?? CALIBRATE_DEFAULTS.warmupRequests;
  if (!Number.isSafeInteger(w) || w < -1) {
    throw new UserError(`--warmup-requests must be >= 0 (or -1 for the trace header's warm_up_requests), got ${w}`);
  }
  const rtt = opts.networkRttUs ?? CALIBRATE_DEFAULTS.networkRttUs;
  if (!Number.isSafeInteger(rtt)) throw new UserError(`--network-rtt-us must be an integer, got ${rtt}`);
  if (rtt !== -1 && rtt < 0)
    throw new UserError(`--network-rtt-us must be >= 0 (or omit to use trace header), got ${rtt}`);
  checkFinite("--network-bandwidth-mbps", opts.networkBandwidthMbps ?? CALIBRATE_DEFAULTS.networkBandwidthMbps, null);
  checkFinite("--ttft-mape-threshold", opts.ttftMapeThreshold ?? CALIBRATE_DEFAULTS.ttftMapeThreshold, 0);
  checkFinite("--hit-rate-tolerance-pp", opts.hitRateTolerancePp ?? CALIBRATE_DEFAULTS.hitRateTolerancePp, 0);
  const hr = opts.simCacheHitRate;
  if (hr !== undefined && (!Number.isFinite(hr) || hr < 0 || hr > 1))
    throw new UserError(`simulated cache_hit_rate must be in [0, 1], got ${hr}`);
}

export function resolveNormalization(header: TraceV2["header"], opts: CalibrateOptions): Normalization {
  const w = opts.warmupRequests ?? CALIBRATE_DEFAULTS.warmupRequests;
  const rtt = opts.networkRttUs ?? CALIBRATE_DEFAULTS.networkRttUs;
  let networkRttUs = rtt;
  if (rtt === -1) {
    const ms = header.network?.measured_rtt_ms;
    if (ms !== undefined && !Number.isFinite(ms))
      throw new UserError(`trace header network.measured_rtt_ms must be a finite number, got ${ms}`);
    networkRttUs = ms !== undefined && ms > 0 ? Math.trunc(ms * 1000) : 0;
  }
  return {
    warmUp: w === -1 ? header.warm_up_requests : w,
    networkRttUs,
    bandwidthMbps: opts.networkBandwidthMbps ?? CALIBRATE_DEFAULTS.networkBandwidthMbps,
  };
}

function breakdown(requests: readonly MatchedRequest[], keyOf: (r: MatchedRequest) => string): BreakdownRow[] {
  const groups = new Map<string, MatchedRequest[]>();
  for (const r of requests) {
    const k = keyOf(r);
    if (k === "") continue;
    const g = groups.get(k);
    if (g === undefined) groups.set(k, [r]);
    else g.push(r);
  }
  return [...groups.keys()].sort().map((key) => {
    const g = groups.get(key)!;
    return {
      key,
      n: g.length,
      ttftMape: mape(
        g.map((r) => r.realTtft),
        g.map((r) => r.simTtft),
      ),
      e2eMape: mape(
        g.map((r) => r.realE2e),
        g.map((r) => r.simE2e),
      ),
    };
  });
}

/** The report and what goes to stderr. Throws UserError on the fatal conditions. */
export function calibrateWithDetails(
  trace: TraceV2,
  sim: readonly SimResultEntry[],
  opts: CalibrateOptions = {},
  itl?: ItlRows,
): { report: CalibrationReport; details: CalibrationDetails } {
  validateCalibrateOptions(opts);
  if (sim.length === 0) throw new UserError("No sim results found — cannot calibrate with empty data");
  const norm = resolveNormalization(trace.header, opts);
  const pairs = matchAndNormalize(trace, sim, norm, itl);
  if (pairs.matched === 0) {
    throw new UserError(
      "No matching request IDs found between trace and sim results — check that both files use the same request ID numbering",
    );
  }
  if (pairs.ttft.real.length === 0) {
    throw new UserError(
      "No valid latency pairs after filtering — all matched requests may have corrupt timing data (negative latencies)",
    );
  }
  const notes: string[] = [];
  if (pairs.duplicateSimIds > 0)
    notes.push(`sim results repeat ${pairs.duplicateSimIds} request ID(s); the last entry of each is used`);

  const traceInfo: TraceInfo = {
    num_requests: pairs.matched + pairs.warmUpExcluded + pairs.unmatchedReal,
    warm_up_excluded: pairs.warmUpExcluded,
    matched_pairs: pairs.matched,
    token_mismatches: pairs.tokenMismatches,
  };
  if (pairs.itlDroppedIds.length > 0) traceInfo.itl_dropped = pairs.itlDroppedIds.length;

  const metrics: Partial<Record<MetricName, MetricComparison>> = {};
  metrics.e2e = compareMetric(pairs.e2e);
  if (pairs.itl.real.length > 0) metrics.itl = compareMetric(pairs.itl);
  metrics.ttft = compareMetric(pairs.ttft);

  const report: CalibrationReport = {
    trace_info: traceInfo,
    metrics,
    config_match: {},
    known_limitations: [...KNOWN_LIMITATIONS],
  };
  const threshold = opts.ttftMapeThreshold ?? CALIBRATE_DEFAULTS.ttftMapeThreshold;
  const ttftMape = metrics.ttft.request_level.mape;
  report.ttft_tolerance = { mape: ttftMape, threshold, within: ttftMape <= threshold };

  addGoodput(report, trace, pairs, opts, notes);
  addHitRate(report, trace, opts, notes);

  const details: CalibrationDetails = {
    normalization: norm,
    unmatchedReal: pairs.unmatchedReal,
    unmatchedSim: pairs.unmatchedSim,
    negativeLatency: pairs.negativeLatency,
    itlDroppedIds: pairs.itlDroppedIds,
    bySloClass: breakdown(pairs.requests, (r) => r.sloClass),
    byModel: breakdown(pairs.requests, (r) => r.model),
    notes,
  };
  return { report, details };
}

/** Goodput against the SLO targets of the command line and the header, when there are any. */
function addGoodput(
  report: CalibrationReport,
  trace: TraceV2,
  pairs: CalibrationPairs,
  opts: CalibrateOptions,
  notes: string[],
): void {
  const targets = mergeSloTargets(opts.sloTargets ?? {}, trace.header.goodput_slo_targets);
  if (targets !== undefined) {
    const samples: GoodputSample[] = pairs.requests.map((r) => ({
      sloClass: r.sloClass,
      realTtft: r.realTtft,
      realE2e: r.realE2e,
      realItl: r.realItl,
      simTtft: r.simTtft,
      simE2e: r.simE2e,
      simItl: r.simItlMean,
    }));
    report.goodput = compareGoodput(samples, targets);
    if (report.goodput.skipped_itl === true) {
      notes.push(
        "goodput: an ITL target is set but some requests have no ITL value (give --itl-data); they count as missing it",
      );
    }
  }
}

/** The KV cache hit rate, simulated against observed, when both are known. */
function addHitRate(report: CalibrationReport, trace: TraceV2, opts: CalibrateOptions, notes: string[]): void {
  const observed = trace.header.observed_kv_metrics;
  const simHr = opts.simCacheHitRate;
  if (observed !== undefined && simHr !== undefined) {
    const tol = opts.hitRateTolerancePp ?? CALIBRATE_DEFAULTS.hitRateTolerancePp;
    const absErrorPp = Math.abs(simHr - observed.hit_rate) * 100;
    report.hit_rate = {
      real_hit_rate: observed.hit_rate,
      sim_hit_rate: simHr,
      abs_error_pp: absErrorPp,
      tolerance_pp: tol,
      // The epsilon keeps the band inclusive despite rounding (|0.75 − 0.70|·100 > 5).
      within: absErrorPp <= tol + 1e-9,
      source: observed.source,
    };
  } else if (observed !== undefined) {
    notes.push(
      `the trace header has an observed KV hit rate (source=${observed.source}, ${observed.hit_rate}) but no simulated cache_hit_rate was given (--sim-metrics, from blis replay --metrics-path); skipping the hit-rate comparison`,
    );
  } else if (simHr !== undefined) {
    notes.push(
      "a simulated cache_hit_rate was given but the trace header has no observed_kv_metrics; skipping the hit-rate comparison",
    );
  }
}

/** The calibration report of a trace and the simulated results of its replay. */
export function calibrate(
  trace: TraceV2,
  sim: readonly SimResultEntry[],
  opts: CalibrateOptions = {},
  itl?: ItlRows,
): CalibrationReport {
  return calibrateWithDetails(trace, sim, opts, itl).report;
}

// Matching and normalization of `blis calibrate` (docs/calibration.md "Calibrate", rules 1–7):
// pair each trace row with its simulated result and bring both to the client's point of view.

import type { TraceRecord, TraceV2 } from "../workload/trace/traceV2.js";
import { groupItlRows, realItlMean, type ItlRows } from "./itlCsv.js";
import type { SimResultEntry } from "./simResults.js";
import type { PairedValues } from "./stats.js";

/** Warm-up count and network normalization after the header fallbacks. */
export interface Normalization {
  warmUp: number;
  networkRttUs: number;
  bandwidthMbps: number;
}

/** One matched request with valid latencies (µs, client frame). */
export interface MatchedRequest {
  request_id: number;
  sloClass: string;
  model: string;
  realTtft: number;
  realE2e: number;
  simTtft: number;
  simE2e: number;
  /** Only with ITL data, for requests with ≥ 2 chunks and a non-negative delta. */
  realItl?: number;
  /** The sim result's itl_mean_us when given, else (e2e − ttft)/(O − 1) when O > 1. */
  simItlMean?: number;
}

export interface CalibrationPairs {
  ttft: PairedValues;
  e2e: PairedValues;
  itl: PairedValues;
  requests: MatchedRequest[];
  warmUpExcluded: number;
  matched: number;
  /** Includes the negative-latency rows, which also stay in `matched`. */
  unmatchedReal: number;
  unmatchedSim: number;
  negativeLatency: number;
  tokenMismatches: number;
  itlDroppedIds: number[];
  duplicateSimIds: number;
}

/** Transfer time of `tokens` tokens at 4 bytes each: 32·tokens / Mbps µs; 0 when Mbps ≤ 0. */
export function transferDelayUs(tokens: number, bandwidthMbps: number): number {
  return bandwidthMbps > 0 ? (tokens * 32) / bandwidthMbps : 0;
}

/** Matching and normalization (docs/calibration.md "Calibrate", rules 1–7). */
export function matchAndNormalize(
  trace: TraceV2,
  sim: readonly SimResultEntry[],
  norm: Normalization,
  itl?: ItlRows,
): CalibrationPairs {
  const simById = new Map<number, SimResultEntry>();
  let duplicateSimIds = 0;
  for (const s of sim) {
    if (simById.has(s.request_id)) duplicateSimIds++;
    simById.set(s.request_id, s); // the last entry of an ID wins
  }
  const chunks = itl === undefined ? undefined : groupItlRows(itl);
  const out: CalibrationPairs = {
    ttft: { real: [], sim: [] },
    e2e: { real: [], sim: [] },
    itl: { real: [], sim: [] },
    requests: [],
    warmUpExcluded: 0,
    matched: 0,
    unmatchedReal: 0,
    unmatchedSim: 0,
    negativeLatency: 0,
    tokenMismatches: 0,
    itlDroppedIds: [],
    duplicateSimIds,
  };
  const matchedIds = new Set<number>();
  for (const row of trace.records) {
    if (row.request_id < norm.warmUp) {
      out.warmUpExcluded++;
      continue;
    }
    const s = simById.get(row.request_id);
    if (s === undefined) {
      out.unmatchedReal++;
      continue;
    }
    out.matched++;
    matchedIds.add(row.request_id);
    const realInput = row.server_input_tokens > 0 ? row.server_input_tokens : row.input_tokens;
    if (realInput !== s.input_tokens || row.output_tokens !== s.output_tokens) out.tokenMismatches++;

    // ITL (rule 6) does not depend on the latency check below (Compat).
    const realItl = pairItl(out, row.request_id, chunks?.get(row.request_id), s);

    const realTtft = row.first_chunk_time_us - row.send_time_us;
    const realE2e = row.last_chunk_time_us - row.send_time_us;
    if (realTtft < 0 || realE2e < 0) {
      // Counted unmatched as well, and still matched (Compat).
      out.unmatchedReal++;
      out.negativeLatency++;
      continue;
    }
    out.requests.push(matchedRequest(out, row, s, norm, realTtft, realE2e, realItl));
  }
  for (const s of sim) if (!matchedIds.has(s.request_id)) out.unmatchedSim++;
  return out;
}

/** Adds the measured ITL mean of a request and its simulated counterpart; returns the measured one. */
function pairItl(
  out: CalibrationPairs,
  id: number,
  chunkTimes: number[] | undefined,
  s: SimResultEntry,
): number | undefined {
  if (chunkTimes === undefined) return undefined;
  const r = realItlMean(chunkTimes);
  if (r === "dropped") out.itlDroppedIds.push(id);
  if (r === "dropped" || r === null) return undefined;
  out.itl.real.push(r);
  out.itl.sim.push(s.output_tokens > 1 ? (s.e2e_us - s.ttft_us) / (s.output_tokens - 1) : 0);
  return r;
}

/** Normalizes the simulated latencies of a matched request (network delays) and pairs them. */
function matchedRequest(
  out: CalibrationPairs,
  row: TraceRecord,
  s: SimResultEntry,
  norm: Normalization,
  realTtft: number,
  realE2e: number,
  realItl: number | undefined,
): MatchedRequest {
  const up = transferDelayUs(s.input_tokens, norm.bandwidthMbps);
  const down = transferDelayUs(s.output_tokens, norm.bandwidthMbps);
  const simTtft = s.ttft_us + norm.networkRttUs + up;
  const simE2e = s.e2e_us + norm.networkRttUs + up + down;
  out.ttft.real.push(realTtft);
  out.ttft.sim.push(simTtft);
  out.e2e.real.push(realE2e);
  out.e2e.sim.push(simE2e);
  const req: MatchedRequest = {
    request_id: row.request_id,
    sloClass: s.slo_class !== undefined && s.slo_class !== "" ? s.slo_class : row.slo_class,
    model: s.model !== undefined && s.model !== "" ? s.model : row.model,
    realTtft,
    realE2e,
    simTtft,
    simE2e,
  };
  if (realItl !== undefined) req.realItl = realItl;
  const simItlMean =
    s.itl_mean_us ?? (s.output_tokens > 1 ? (s.e2e_us - s.ttft_us) / (s.output_tokens - 1) : undefined);
  if (simItlMean !== undefined) req.simItlMean = simItlMean;
  return req;
}

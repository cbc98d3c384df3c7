// `replay`: simulate exactly the requests a trace v2 records (docs/calibration.md "Replay").

import type { SimResultEntry } from "./simResults.js";
import type { Coefficients } from "../config/latency/backend.js";
import type { RunInput } from "../config/runOptions.js";
import type { StepProbe } from "../instance/stepProbe.js";
import { F_COMPLETED } from "../core/ledger.js";
import { simulate, type SimulationResult } from "../sim/simulate.js";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import {
  ArrayRequestSource,
  replayArrival,
  traceReplaySource,
  type TraceRecord,
  type TraceV2,
  type WorkloadRequest,
} from "../workload/index.js";

export interface ReplayOptions {
  /** Simulation options as for `run` (model, hardware, TP, limits, seed, ...). */
  run: RunInput;
  /** Leave out rows whose request_id is below the header's warm_up_requests. */
  skipWarmup?: boolean;
  /** Leave out rows arriving within this many seconds of the first arrival (cold start). */
  skipFirstSeconds?: number;
  logger?: Logger;
  /** Fitting: per-step hooks and replacement coefficients. */
  probe?: StepProbe;
  coefficients?: Coefficients;
}

/** One simulated request (a results-file entry), with the trace's measurement beside it when there is one. */
export interface ReplayRequestResult extends SimResultEntry {
  itl_mean_us: number;
  /** Measured: first chunk − send and last chunk − send (µs), when the row has them. */
  real_ttft_us?: number;
  real_e2e_us?: number;
}

export interface ReplayResult {
  sim: SimulationResult;
  /** The trace rows that were simulated, in file order. */
  rows: TraceRecord[];
  /** Completed requests sorted by request_id. */
  requests: ReplayRequestResult[];
  /** Ledger sequence number of each simulated row (index into rows), -1 if not found. */
  seqOfRow: Int32Array;
}

/** The rows a replay simulates after the warm-up and cold-start filters. */
export function replayRows(trace: TraceV2, skipWarmup: boolean, skipFirstSeconds: number): TraceRecord[] {
  if (!(skipFirstSeconds >= 0) || !Number.isFinite(skipFirstSeconds)) {
    throw new UserError(`--skip-first-seconds must be a finite value >= 0, got ${skipFirstSeconds}`);
  }
  const v3 = trace.layout === "v3";
  let rows = trace.records;
  if (skipWarmup && trace.header.warm_up_requests > 0) rows = rows.filter((r) => r.request_id >= trace.header.warm_up_requests);
  if (skipFirstSeconds > 0 && rows.length > 0) {
    const first = Math.min(...rows.map((r) => replayArrival(r, v3)));
    rows = rows.filter((r) => replayArrival(r, v3) >= first + skipFirstSeconds * 1e6);
  }
  if (rows.length === 0) throw new UserError("no trace rows left to replay after the warm-up and --skip-first-seconds filters");
  return rows;
}

/** Horizon of a replay: given, else twice the last arrival (600 s if every arrival is ≤ 0). */
export function replayHorizon(requests: readonly WorkloadRequest[], given: number | undefined): number {
  if (given !== undefined) {
    if (!(given > 0)) throw new UserError(`--horizon must be > 0, got ${given}`);
    return given;
  }
  let max = 0;
  for (const r of requests) if (r.arrival > max) max = r.arrival;
  if (max <= 0) return 600_000_000;
  const h = 2 * max;
  return h > Number.MAX_SAFE_INTEGER ? Infinity : h;
}

/** Measured TTFT and E2E of a row (µs), or null when the row has no complete measurement. */
export function measuredLatency(r: TraceRecord): { ttft: number; e2e: number } | null {
  if (r.first_chunk_time_us <= 0 || r.last_chunk_time_us <= 0) return null;
  return { ttft: r.first_chunk_time_us - r.send_time_us, e2e: r.last_chunk_time_us - r.send_time_us };
}

export async function replay(trace: TraceV2, opts: ReplayOptions): Promise<ReplayResult> {
  const rows = replayRows(trace, opts.skipWarmup ?? false, opts.skipFirstSeconds ?? 0);
  const seed = BigInt.asIntN(64, BigInt(opts.run.seed ?? 42));
  const src = traceReplaySource({ ...trace, records: rows }, seed);
  const all: WorkloadRequest[] = [];
  for (let r = src.next(); r !== null; r = src.next()) all.push(r);
  const horizon = replayHorizon(all, opts.run.horizon);
  const inHorizon = all.filter((r) => r.arrival < horizon);
  const sim = await simulate(opts.run, {
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    workload: { source: new ArrayRequestSource(inHorizon), horizon },
    ...(opts.probe !== undefined ? { hooks: { stepProbe: opts.probe } } : {}),
    ...(opts.coefficients !== undefined ? { coefficients: opts.coefficients } : {}),
  });
  const out = { sim, rows, ...collect(sim, rows) };
  const missing = rows.length - out.requests.length;
  if (missing > 0) {
    opts.logger?.warn(
      `${missing} of ${rows.length} replayed requests did not complete before the horizon ${horizon} µs; give a longer --horizon`,
    );
  }
  return out;
}

function collect(sim: SimulationResult, rows: readonly TraceRecord[]): Pick<ReplayResult, "requests" | "seqOfRow"> {
  const l = sim.run.ledger;
  const seqById = new Map<number, number>();
  for (let i = 0; i < l.size; i++) {
    const id = l.id(i);
    if (!id.startsWith("request_")) continue;
    const n = Number(id.slice(8));
    if (Number.isInteger(n)) seqById.set(n, i);
  }
  const seqOfRow = new Int32Array(rows.length).fill(-1);
  const requests: ReplayRequestResult[] = [];
  rows.forEach((row, k) => {
    const i = seqById.get(row.request_id);
    if (i === undefined) return;
    seqOfRow[k] = i;
    if ((l.flags[i]! & F_COMPLETED) === 0) return;
    const e: ReplayRequestResult = {
      request_id: row.request_id,
      ttft_us: l.ttft[i]!,
      e2e_us: l.e2e[i]!,
      input_tokens: l.inputLen[i]!,
      output_tokens: l.outputLen[i]!,
      itl_mean_us: l.itl[i]!,
    };
    if (row.slo_class !== "") e.slo_class = row.slo_class;
    if (row.model !== "") e.model = row.model;
    const m = measuredLatency(row);
    if (m !== null) {
      e.real_ttft_us = m.ttft;
      e.real_e2e_us = m.e2e;
    }
    requests.push(e);
  });
  requests.sort((a, b) => a.request_id - b.request_id);
  return { requests, seqOfRow };
}

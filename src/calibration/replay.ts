// `replay`: simulate exactly the requests a trace v2 records (docs/calibration.md "Replay").

import type { SimResultEntry } from "./simResults.js";
import type { Coefficients } from "../latency/backends/backend.js";
import type { RunInput } from "../config/runOptions.js";
import type { StepProbe } from "../instance/stepProbe.js";
import { F_COMPLETED } from "../core/ledger.js";
import { simulate, type SimulationResult } from "../sim/simulate.js";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { checkTimeoutFlag, setDeadlines } from "../sim/resolveWorkload.js";
import {
  ArrayRequestSource,
  parseThinkDist,
  planReplaySessions,
  replayArrival,
  traceReplaySource,
  type ReplayThink,
  type SessionPlan,
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
  /** `closed-loop`: sessions send each later round when the previous one ends (default `fixed`). */
  sessionMode?: "fixed" | "closed-loop";
  /** `--think-time-dist` (closed-loop only). */
  thinkDist?: string;
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
  if (skipWarmup && trace.header.warm_up_requests > 0)
    rows = rows.filter((r) => r.request_id >= trace.header.warm_up_requests);
  if (skipFirstSeconds > 0 && rows.length > 0) {
    const first = Math.min(...rows.map((r) => replayArrival(r, v3)));
    rows = rows.filter((r) => replayArrival(r, v3) >= first + skipFirstSeconds * 1e6);
  }
  if (rows.length === 0)
    throw new UserError("no trace rows left to replay after the warm-up and --skip-first-seconds filters");
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
  const think = replayThink(opts);
  const timeout = opts.run.timeout ?? -1;
  checkTimeoutFlag(timeout);
  const src = traceReplaySource({ ...trace, records: rows }, seed);
  let all: WorkloadRequest[] = [];
  for (let r = src.next(); r !== null; r = src.next()) all.push(r);
  const horizon = replayHorizon(all, opts.run.horizon);
  let sessions: SessionPlan | null = null;
  if (opts.sessionMode === "closed-loop") {
    ({ requests: all, plan: sessions } = closedLoop(trace, rows, all, { think, horizon, seed, timeout }));
  }
  const inHorizon = all.filter((r) => r.arrival < horizon);
  setDeadlines(inHorizon, timeout);
  const sim = await simulate(opts.run, {
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    workload: { source: new ArrayRequestSource(inHorizon), horizon, sessions, deadlines: timeout > 0 },
    ...(opts.probe !== undefined ? { hooks: { stepProbe: opts.probe } } : {}),
    ...(opts.coefficients !== undefined ? { coefficients: opts.coefficients } : {}),
  });
  const out = { sim, rows, ...collect(sim, rows, sessions?.tags ?? null) };
  const missing = rows.length - out.requests.length;
  if (missing > 0) {
    opts.logger?.warn(
      `${missing} of ${rows.length} replayed requests did not complete before the horizon ${horizon} µs; give a longer --horizon`,
    );
  }
  return out;
}

/** `--think-time-ms` / `--think-time-dist`: closed-loop only, one of them. */
function replayThink(opts: ReplayOptions): ReplayThink {
  const ms = opts.run.thinkTimeMs;
  const dist = opts.thinkDist;
  if (opts.sessionMode !== "closed-loop" && (ms !== undefined || dist !== undefined)) {
    throw new UserError(
      `${ms !== undefined ? "--think-time-ms" : "--think-time-dist"} applies only with --session-mode closed-loop`,
    );
  }
  if (ms !== undefined && dist !== undefined)
    throw new UserError("--think-time-ms and --think-time-dist are mutually exclusive");
  if (ms !== undefined) {
    if (!(ms >= 0)) throw new UserError(`--think-time-ms must be >= 0, got ${ms}`);
    return { constantUs: ms * 1000 };
  }
  return dist !== undefined ? parseThinkDist(dist) : null;
}

function closedLoop(
  trace: TraceV2,
  rows: readonly TraceRecord[],
  all: readonly WorkloadRequest[],
  o: { think: ReplayThink; horizon: number; seed: bigint; timeout: number },
): { requests: WorkloadRequest[]; plan: SessionPlan } {
  const growth = trace.header.session_context_growth;
  if (growth !== "" && growth !== "accumulate") {
    throw new UserError(`session_context_growth: unknown value "${growth}" (valid: "accumulate" or empty)`);
  }
  const byId = new Map(all.map((r) => [r.id, r]));
  const v3 = trace.layout === "v3";
  return planReplaySessions(
    rows,
    rows.map((r) => byId.get(`request_${r.request_id}`)!),
    {
      accumulate: growth === "accumulate",
      think: o.think,
      horizon: o.horizon,
      seed: o.seed,
      timeoutUs: o.timeout > 0 ? o.timeout * 1e6 : 0,
      arrivalOf: (r) => replayArrival(r, v3),
    },
  );
}

function collect(
  sim: SimulationResult,
  rows: readonly TraceRecord[],
  tags: SessionPlan["tags"] | null,
): Pick<ReplayResult, "requests" | "seqOfRow"> {
  const l = sim.run.ledger;
  const seqById = new Map<number, number>();
  // Closed-loop follow-ups carry their own IDs: found by session and round.
  const seqByRound = new Map<string, number>();
  for (let i = 0; i < l.size; i++) {
    const id = l.id(i);
    const tag = tags?.get(id);
    if (tag !== undefined) seqByRound.set(`${tag.sessionId}\u0000${tag.round}`, i);
    if (!id.startsWith("request_")) continue;
    const n = Number(id.slice(8));
    if (Number.isInteger(n)) seqById.set(n, i);
  }
  const seqOfRow = new Int32Array(rows.length).fill(-1);
  const requests: ReplayRequestResult[] = [];
  rows.forEach((row, k) => {
    const i =
      tags !== null && row.session_id !== "" && row.round_index > 0
        ? seqByRound.get(`${row.session_id}\u0000${row.round_index}`)
        : seqById.get(row.request_id);
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

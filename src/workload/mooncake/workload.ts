// A `mooncake_trace:` workload-spec entry → the run's requests (docs/traces.md).

import { UserError } from "../../util/errors.js";
import { InputFileError, readInputFile } from "../../util/inputFile.js";
import type { RequestSource } from "../../core/workloadRequest.js";
import type { SessionPlan } from "../sessions/plan.js";
import type { MooncakeTraceSpec } from "../spec/types.js";
import { closedLoopTrace } from "./closedLoop.js";
import { parseMooncake } from "./parse.js";
import { arrivalOrder, TraceRequests } from "./requests.js";
import { MooncakeSource } from "./source.js";
import { DEFAULT_TRACE_BLOCK_SIZE, type MooncakeTrace } from "./trace.js";

/** Largest trace file read (its text must fit one string). */
const TRACE_FILE_LIMIT = 500 * 1024 * 1024;

/** Reads and checks a trace file; `blockSize` 0 = 512. */
export function loadMooncakeTrace(path: string, blockSize = 0): MooncakeTrace {
  let text: string;
  try {
    text = readInputFile(path, TRACE_FILE_LIMIT);
  } catch (e) {
    if (e instanceof InputFileError) throw new UserError(`reading mooncake trace: open ${path}: ${e.reason}`);
    throw e;
  }
  return parseMooncake(text, path, blockSize > 0 ? blockSize : DEFAULT_TRACE_BLOCK_SIZE);
}

export interface TraceRunOptions {
  horizon: number;
  /** Request cap (0 = the whole trace). */
  maxRequests: number;
  seed: bigint;
  /** Client deadline after each arrival, µs (0 = none). */
  timeoutUs: number;
}

/** The requests of a trace entry: open loop at the trace's arrivals, or closed loop with N in flight. */
export function mooncakeWorkload(
  entry: MooncakeTraceSpec,
  o: TraceRunOptions,
): { source: RequestSource; sessions: SessionPlan | null } {
  const trace = loadMooncakeTrace(entry.path, entry.block_size);
  const requests = new TraceRequests(trace, o.seed, entry.time_scale > 0 ? entry.time_scale : 1, o.timeoutUs);
  const order = arrivalOrder(trace);
  const cap = o.maxRequests > 0 ? o.maxRequests : Infinity;
  if (entry.concurrency > 0) {
    const { source, plan } = closedLoopTrace(requests, order, entry.concurrency, cap, o.horizon);
    return { source, sessions: plan };
  }
  return { source: new MooncakeSource(requests, order, cap, o.horizon), sessions: null };
}

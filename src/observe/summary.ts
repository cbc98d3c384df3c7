// The stdout summary of `blis observe` (docs/observe.md "Summary"): latency statistics of the
// `ok` rows, in the `=== Simulation Metrics ===` JSON form of `blis run`.

import { goJson } from "../util/goFormat.js";
import { meanMs, percentileMs } from "../metrics/stats.js";
import type { TraceRecord } from "../workload/index.js";

export interface ObservedMetrics {
  instance_id: string;
  completed_requests: number;
  failed_requests: number;
  timed_out_requests: number;
  total_input_tokens: number;
  total_output_tokens: number;
  duration_s: number;
  responses_per_sec: number;
  tokens_per_sec: number;
  e2e_mean_ms: number | null;
  e2e_p50_ms: number | null;
  e2e_p90_ms: number | null;
  e2e_p95_ms: number | null;
  e2e_p99_ms: number | null;
  ttft_mean_ms: number | null;
  ttft_p50_ms: number | null;
  ttft_p90_ms: number | null;
  ttft_p95_ms: number | null;
  ttft_p99_ms: number | null;
  itl_mean_ms: number | null;
  itl_p50_ms: number | null;
  itl_p90_ms: number | null;
  itl_p95_ms: number | null;
  itl_p99_ms: number | null;
  /** With --detectors: detector → final label (docs/saturation.md). */
  saturation?: Record<string, string>;
}

function sorted(v: number[]): Float64Array {
  return Float64Array.from(v).sort();
}

/** A statistic of `xs`, or null without samples (0 would read as a measured zero latency). */
function stat(xs: Float64Array, f: (x: Float64Array) => number): number | null {
  return xs.length > 0 ? f(xs) : null;
}

/**
 * Statistics of the `ok` rows: TTFT = first chunk − send, E2E = last chunk − send, and per
 * streamed request with at least 2 output tokens the mean inter-token latency
 * (last − first chunk) / (output tokens − 1). Throughput is over the span from the first send
 * to the last chunk of those rows.
 */
export function summarizeObserved(records: readonly TraceRecord[]): ObservedMetrics {
  const ttft: number[] = [];
  const e2e: number[] = [];
  const itl: number[] = [];
  let failed = 0;
  let timedOut = 0;
  let inTokens = 0;
  let outTokens = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const r of records) {
    if (r.status === "timeout") timedOut++;
    if (r.status !== "ok") {
      if (r.status !== "timeout") failed++;
      continue;
    }
    ttft.push(r.first_chunk_time_us - r.send_time_us);
    e2e.push(r.last_chunk_time_us - r.send_time_us);
    if (r.streaming && r.output_tokens > 1)
      itl.push((r.last_chunk_time_us - r.first_chunk_time_us) / (r.output_tokens - 1));
    inTokens += r.server_input_tokens > 0 ? r.server_input_tokens : r.input_tokens;
    outTokens += r.output_tokens;
    first = Math.min(first, r.send_time_us);
    last = Math.max(last, r.last_chunk_time_us);
  }
  const duration = last > first ? (last - first) / 1e6 : 0;
  const t = sorted(ttft);
  const e = sorted(e2e);
  const i = sorted(itl);
  return {
    instance_id: "observed",
    completed_requests: ttft.length,
    failed_requests: failed,
    timed_out_requests: timedOut,
    total_input_tokens: inTokens,
    total_output_tokens: outTokens,
    duration_s: duration,
    responses_per_sec: duration > 0 ? ttft.length / duration : 0,
    tokens_per_sec: duration > 0 ? outTokens / duration : 0,
    e2e_mean_ms: stat(e, meanMs),
    e2e_p50_ms: stat(e, (x) => percentileMs(x, 50)),
    e2e_p90_ms: stat(e, (x) => percentileMs(x, 90)),
    e2e_p95_ms: stat(e, (x) => percentileMs(x, 95)),
    e2e_p99_ms: stat(e, (x) => percentileMs(x, 99)),
    ttft_mean_ms: stat(t, meanMs),
    ttft_p50_ms: stat(t, (x) => percentileMs(x, 50)),
    ttft_p90_ms: stat(t, (x) => percentileMs(x, 90)),
    ttft_p95_ms: stat(t, (x) => percentileMs(x, 95)),
    ttft_p99_ms: stat(t, (x) => percentileMs(x, 99)),
    itl_mean_ms: stat(i, meanMs),
    itl_p50_ms: stat(i, (x) => percentileMs(x, 50)),
    itl_p90_ms: stat(i, (x) => percentileMs(x, 90)),
    itl_p95_ms: stat(i, (x) => percentileMs(x, 95)),
    itl_p99_ms: stat(i, (x) => percentileMs(x, 99)),
  };
}

export function renderObservedMetrics(m: ObservedMetrics): string {
  return `=== Simulation Metrics ===\n${goJson(m)}\n`;
}

import { Histogram, meanMs, percentileMs } from "./stats.js";
import type { GoodputClassResult } from "./goodput.js";
import type { AdapterMetrics } from "./adapters.js";
import type { SpeculativeMetrics } from "./speculative.js";

/**
 * The `=== Simulation Metrics ===` JSON object, keys in BLIS order (docs/behavior.md
 * "The metrics block").
 */
export interface MetricsBlock {
  instance_id: string;
  completed_requests: number;
  still_queued: number;
  still_running: number;
  injected_requests: number;
  total_input_tokens: number;
  total_output_tokens: number;
  vllm_estimated_duration_s: number;
  responses_per_sec: number;
  tokens_per_sec: number;
  e2e_mean_ms: number;
  e2e_p90_ms: number;
  e2e_p95_ms: number;
  e2e_p99_ms: number;
  ttft_mean_ms: number;
  ttft_p90_ms: number;
  ttft_p95_ms: number;
  ttft_p99_ms: number;
  itl_mean_ms: number;
  itl_p90_ms: number;
  itl_p95_ms: number;
  itl_p99_ms: number;
  scheduling_delay_p99_ms: number;
  kv_allocation_failures?: number;
  preemption_count: number;
  dropped_unservable: number;
  /** Runs with --detectors: detector → final label (docs/saturation.md). */
  saturation?: Record<string, string>;
  /** Runs with goodput targets (docs/gateway.md "Goodput"). */
  goodput_rps?: number;
  slo_attainment?: number;
  per_class?: Record<string, GoodputClassResult>;
  /** Only in runs with client deadlines (docs/behavior.md "Client timeouts"). */
  length_capped_requests?: number;
  timed_out_requests?: number;
  /** LoRA runs: per-adapter loads, evictions, TTFT and throughput (docs/lora.md "Output"). */
  adapters?: Record<string, AdapterMetrics>;
  /** Speculative-decoding runs: acceptance, tokens per step, TPOT (docs/speculative.md "Metrics"). */
  speculative?: SpeculativeMetrics;
  /** Registered features' results, by feature name (docs/extending.md "Adding a feature"). */
  features?: Record<string, unknown>;
}

export interface BlockCounts {
  completed: number;
  stillQueued: number;
  stillRunning: number;
  dropped: number;
  inputTokens: number;
  outputTokens: number;
  simEnded: number;
  preemptions: number;
  kvAllocationFailures: number;
  timedOut: number;
  /** Requests that reached an instance with a client deadline. */
  withDeadline: number;
}

/** Sorted tick values feeding one block. */
export interface BlockSamples {
  e2e: Float64Array;
  ttft: Float64Array;
  sched: Float64Array;
  itl: Histogram;
}

/**
 * The block of one instance or the cluster. `deadlines`: the run had client deadlines, so the block
 * carries today's timeout keys and counts timed-out requests as injected.
 */
export function buildMetricsBlock(id: string, c: BlockCounts, s: BlockSamples, deadlines = false): MetricsBlock {
  const duration = c.simEnded / 1e6;
  const rate = (x: number): number => (duration > 0 ? x / duration : 0);
  const b: MetricsBlock = {
    instance_id: id,
    completed_requests: c.completed,
    still_queued: c.stillQueued,
    still_running: c.stillRunning,
    injected_requests: c.completed + c.stillQueued + c.stillRunning + c.dropped + c.timedOut,
    total_input_tokens: c.inputTokens,
    total_output_tokens: c.outputTokens,
    vllm_estimated_duration_s: duration,
    responses_per_sec: rate(c.completed),
    tokens_per_sec: rate(c.outputTokens),
    e2e_mean_ms: meanMs(s.e2e),
    e2e_p90_ms: percentileMs(s.e2e, 90),
    e2e_p95_ms: percentileMs(s.e2e, 95),
    e2e_p99_ms: percentileMs(s.e2e, 99),
    ttft_mean_ms: meanMs(s.ttft),
    ttft_p90_ms: percentileMs(s.ttft, 90),
    ttft_p95_ms: percentileMs(s.ttft, 95),
    ttft_p99_ms: percentileMs(s.ttft, 99),
    itl_mean_ms: s.itl.meanMs(),
    itl_p90_ms: s.itl.percentileMs(90),
    itl_p95_ms: s.itl.percentileMs(95),
    itl_p99_ms: s.itl.percentileMs(99),
    scheduling_delay_p99_ms: percentileMs(s.sched, 99),
    preemption_count: c.preemptions,
    dropped_unservable: c.dropped,
  };
  if (deadlines || c.timedOut > 0) {
    // Nothing here caps a request's length below what it asked for: max-model-len drops instead.
    b.length_capped_requests = 0;
    b.timed_out_requests = c.timedOut;
  }
  if (c.kvAllocationFailures > 0) {
    // Keep BLIS key order: kv_allocation_failures sits before preemption_count.
    const { preemption_count, dropped_unservable, length_capped_requests, timed_out_requests, ...head } = b;
    return {
      ...head,
      kv_allocation_failures: c.kvAllocationFailures,
      preemption_count,
      dropped_unservable,
      ...(timed_out_requests !== undefined ? { length_capped_requests, timed_out_requests } : {}),
    };
  }
  return b;
}

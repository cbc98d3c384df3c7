// The latency model contract used by the instance step.

import type { StepRequestView } from "../core/stepView.js";

export type { StepRequestView };

/**
 * Which request timeline the engine follows with this model (docs/behavior.md
 * "Step time and request timelines"):
 * "seed" is the 2025 BLIS timeline (a duplicated last ITL entry, α0 + α1·L queueing); "current" is
 * today's: O − 1 ITL entries, only scheduled requests advance, and a fixed post-decode overhead
 * added to E2E.
 */
export type Timeline = "seed" | "current";

export interface LatencyModel {
  /** Delay between an instance Arrival and its Queued event. */
  queueingTime(inputLen: number): number;
  /** trunc(α2): added to TTFT and to every ITL entry, never delays an event. */
  outputTokenProcessingTime(): number;
  /** Added once to the E2E of a request with output (current timeline); never delays an event. */
  postDecodeOverhead(): number;
  readonly timeline: Timeline;
  /** Step duration in ticks for batch[0..count), from each request's current PI and NumNewTokens. */
  stepTime(batch: readonly StepRequestView[], count: number): number;
  /**
   * Optional: what stepTime returns for batch[0..count) plus `decodes` more requests, each
   * decoding one token (PI ≥ input length, output length > 0, NumNewTokens 1), whose PIs sum to
   * `decodePis`. Models whose step time depends on such requests only through their count and PI
   * sum can offer it; the instance then leaves requests in plain decode out of the batch it passes.
   */
  stepTimeWithDecodes?(batch: readonly StepRequestView[], count: number, decodes: number, decodePis: number): number;
}

// The latency model contract used by the instance step.

/** What a latency model may read of a request in the running batch. */
export interface StepRequestView {
  /** ProgressIndex: tokens processed so far (engine.md §3.2). */
  pi: number;
  inputLen: number;
  outputLen: number;
  /** Tokens this request contributes to the current step. */
  numNewTokens: number;
}

export interface LatencyModel {
  /** Delay between an instance Arrival and its Queued event: trunc(α0 + α1·L). */
  queueingTime(inputLen: number): number;
  /** trunc(α2): added to TTFT and to every ITL entry, never delays an event. */
  outputTokenProcessingTime(): number;
  /** Step duration in ticks for batch[0..count), from each request's current PI and NumNewTokens. */
  stepTime(batch: readonly StepRequestView[], count: number): number;
}

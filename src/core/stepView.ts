// The view of a request that step-time models get: core, so that requests and latency models
// share it without depending on each other.

/** What a latency model may read of a request in the running batch. */
export interface StepRequestView {
  /** ProgressIndex: tokens processed so far (docs/behavior.md "Request lifecycle"). */
  pi: number;
  inputLen: number;
  outputLen: number;
  /** Tokens this request contributes to the current step. */
  numNewTokens: number;
  /**
   * Prompt tokens whose KV exists once this step ends (cached prefix + chunks so far + this one);
   * absent = pi + numNewTokens. A first chunk after a prefix-cache hit starts at computed − numNewTokens.
   */
  computed?: number;
}

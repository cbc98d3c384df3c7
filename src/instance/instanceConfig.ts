import type { PreemptionRule } from "../policy/preemption.js";
import type { InstanceLora } from "../lora/instanceLora.js";
import type { InstanceSpeculation } from "../speculative/instanceSpec.js";
export interface InstanceConfig {
  maxRunning: number;
  maxScheduledTokens: number;
  longPrefillThreshold: number;
  blockSize: number;
  /** Per-SLO-class chunking thresholds (extension); null = the global threshold for everyone. */
  sloPrefillThresholds: ReadonlyMap<string, number> | null;
  /** Victim choice when batch formation needs KV blocks: BLIS tail, or the SLO-aware extension. */
  preemptionPolicy: PreemptionRule;
  /** Apply priority floors set by the router priority bridge. */
  priorityFloors: boolean;
  /** Longest sequence (prompt + output) the instance serves; 0 = unlimited (docs/latency.md "Max model length"). */
  maxModelLen: number;
  /**
   * Register the step a Queued event starts as the chain (closed-loop runs, docs/behavior.md#q1),
   * so same-tick enqueues share one step chain; absent or false = the seed-era behavior.
   */
  oneStepChain?: boolean;
  /** LoRA adapters of this instance (docs/lora.md); absent = LoRA off. */
  lora?: InstanceLora;
  /** Speculative decoding on this instance (docs/speculative.md); absent = off. */
  speculation?: InstanceSpeculation;
}

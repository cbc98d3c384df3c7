import { factoryPolicy } from "../../util/policyRegistry.js";
import { minMaxInPlace, type Scorer, type ScorerDescriptor } from "./scorer.js";
import type { RouterState } from "../snapshot.js";

/**
 * vLLM's data-parallel engine choice (argmin of waiting × 4 + running) as a score: min-max↓ over
 * 4·QueueDepth + BatchSize. It matches vLLM only when used alone (docs/behavior.md "Routing and
 * scorers").
 */
export class VllmDpScorer implements Scorer {
  readonly name = "vllm-dp";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = 4 * s[i]!.queueDepth + s[i]!.batchSize;
    minMaxInPlace(out, s.length, true);
  }
  observe(): void {}
}

export const vllmDp: ScorerDescriptor = factoryPolicy(
  "vllm-dp",
  () => new VllmDpScorer(),
  "vLLM data-parallel balancing",
);

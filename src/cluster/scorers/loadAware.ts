import { factoryPolicy } from "../../util/policyRegistry.js";
import type { Scorer, ScorerDescriptor } from "./scorer.js";
import type { RouterState } from "../snapshot.js";

/** llm-d's load-aware scorer saturates at this queue depth. */
export const LOAD_AWARE_THRESHOLD = 128;

/**
 * 0.5 for an empty queue, else 0.5 × (1 − min(Q, 128)/128): never above 0.5, so its effective
 * weight is half its nominal share (docs/behavior.md "Routing and scorers").
 */
export class LoadAwareScorer implements Scorer {
  readonly name = "load-aware";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) {
      const q = s[i]!.queueDepth;
      out[i] = q === 0 ? 0.5 : 0.5 * (1 - Math.min(q, LOAD_AWARE_THRESHOLD) / LOAD_AWARE_THRESHOLD);
    }
  }
  observe(): void {}
}

export const loadAware: ScorerDescriptor = factoryPolicy(
  "load-aware",
  () => new LoadAwareScorer(),
  "short queues, capped at 128",
);

import { factoryPolicy } from "../../util/policyRegistry.js";
import { minMaxInPlace, type Scorer, type ScorerDescriptor } from "./scorer.js";
import type { RouterState } from "../snapshot.js";

/** llm-d's running-requests-size scorer: min-max↓ over BatchSize; 1.0 for all when equal. */
export class RunningRequestsScorer implements Scorer {
  readonly name = "running-requests";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = s[i]!.batchSize;
    minMaxInPlace(out, s.length, true);
  }
  observe(): void {}
}

export const runningRequests: ScorerDescriptor = factoryPolicy(
  "running-requests",
  () => new RunningRequestsScorer(),
  "small running batches",
);

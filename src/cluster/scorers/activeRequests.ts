import { factoryPolicy } from "../../util/policyRegistry.js";
import type { Scorer, ScorerDescriptor } from "./scorer.js";
import type { RouterState } from "../snapshot.js";

/**
 * llm-d's active-request scorer over the live in-flight count F: with m = max F, 1.0 when F = 0 or
 * m = 0, else (m − F)/m. Deliberately asymmetric: equal non-zero counts all score 0
 * (docs/behavior.md "Routing and scorers").
 */
export class ActiveRequestsScorer implements Scorer {
  readonly name = "active-requests";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    let m = 0;
    for (let i = 0; i < s.length; i++) if (s[i]!.inFlight > m) m = s[i]!.inFlight;
    for (let i = 0; i < s.length; i++) {
      const f = s[i]!.inFlight;
      out[i] = f === 0 || m === 0 ? 1.0 : (m - f) / m;
    }
  }
  observe(): void {}
}

export const activeRequests: ScorerDescriptor = factoryPolicy(
  "active-requests",
  () => new ActiveRequestsScorer(),
  "few in-flight requests (live)",
);

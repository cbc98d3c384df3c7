import { RoutingDecision, type RoutingPolicy } from "./routing.js";
import type { RouterState } from "../snapshot.js";

/** Smallest EffectiveLoad, ties to the lowest index (docs/behavior.md "Routing and scorers"). */
export class LeastLoadedRouting implements RoutingPolicy {
  readonly name = "least-loaded";
  private readonly d = new RoutingDecision();
  route(_req: unknown, state: RouterState): RoutingDecision {
    const s = state.snapshots;
    let best = 0;
    let bestLoad = s[0]!.effectiveLoad;
    for (let i = 1; i < s.length; i++) {
      const l = s[i]!.effectiveLoad;
      if (l < bestLoad) {
        best = i;
        bestLoad = l;
      }
    }
    this.d.target = best;
    this.d.reason = `least-loaded (load=${bestLoad})`;
    return this.d;
  }
}

/** Largest EffectiveLoad (pathological test policy). */
export class AlwaysBusiestRouting implements RoutingPolicy {
  readonly name = "always-busiest";
  private readonly d = new RoutingDecision();
  route(_req: unknown, state: RouterState): RoutingDecision {
    const s = state.snapshots;
    let best = 0;
    let bestLoad = s[0]!.effectiveLoad;
    for (let i = 1; i < s.length; i++) {
      const l = s[i]!.effectiveLoad;
      if (l > bestLoad) {
        best = i;
        bestLoad = l;
      }
    }
    this.d.target = best;
    this.d.reason = `always-busiest (load=${bestLoad})`;
    return this.d;
  }
}

import { RoutingDecision, type RoutingDescriptor, type RoutingPolicy } from "./routing.js";
import type { RouterState } from "../snapshot.js";
import { TIE_BREAK_FLAG, TieBreaker, tieBreakParams, type TieBreakParams } from "./tieBreak.js";

/**
 * Smallest EffectiveLoad, ties to the first candidate or broken at random (docs/behavior.md
 * "Routing and scorers").
 */
export class LeastLoadedRouting implements RoutingPolicy {
  readonly name = "least-loaded";
  private readonly d = new RoutingDecision();
  private readonly ties: TieBreaker;
  constructor(tieBreak: TieBreakParams = tieBreakParams.parse({})) {
    this.ties = new TieBreaker(tieBreak);
  }
  route(_req: unknown, state: RouterState): RoutingDecision {
    const s = state.snapshots;
    let best = 0;
    let bestLoad = s[0]!.effectiveLoad;
    let tied = 1;
    for (let i = 1; i < s.length; i++) {
      const l = s[i]!.effectiveLoad;
      if (l < bestLoad) {
        best = i;
        bestLoad = l;
        tied = 1;
      } else if (l === bestLoad) tied++;
    }
    if (tied > 1 && this.ties.random) {
      let r = this.ties.pick(tied);
      for (let i = 0; i < s.length; i++) {
        if (s[i]!.effectiveLoad === bestLoad && r-- === 0) {
          best = i;
          break;
        }
      }
    }
    this.d.target = best;
    this.d.reason = `least-loaded (load=${bestLoad})`;
    return this.d;
  }
}

export const leastLoaded: RoutingDescriptor<TieBreakParams> = {
  name: "least-loaded",
  description: "lowest effective load",
  params: tieBreakParams,
  flags: [TIE_BREAK_FLAG],
  create: (p) => new LeastLoadedRouting(p),
};

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

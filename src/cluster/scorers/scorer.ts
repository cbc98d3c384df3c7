import { PolicyRegistry, type PolicyDescriptor } from "../../util/policyRegistry.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import type { RoutingContext, ScorerSpec } from "../routing/context.js";

/** One signal of the weighted routing pipeline: a score in [0, 1] per instance. */
export interface Scorer {
  readonly name: string;
  /** Writes one score per instance (index order) into `out` (pre-filled with 0). */
  score(req: Request, state: RouterState, out: Float64Array): void;
  /** Called after the argmax with the chosen instance (prefix-index updates). */
  observe(req: Request, chosen: number): void;
}

export type { ScorerSpec };

export type ScorerFactory = (ctx: RoutingContext) => Scorer;

export type ScorerDescriptor<P = Record<string, never>> = PolicyDescriptor<RoutingContext, Scorer, P>;

export const scorers = new PolicyRegistry<RoutingContext, Scorer>("scorer");

/** Builds a scorer with its parameters taken from the routing context (defaults when absent). */
export function createScorer(name: string, ctx: RoutingContext): Scorer {
  return scorers.create(name, ctx.params ?? {}, ctx);
}

/** The `queue-depth` normalization, shared by scorers that read load. */
export function queueDepthScores(state: RouterState, out: Float64Array): void {
  const s = state.snapshots;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < s.length; i++) {
    const l = s[i]!.effectiveLoad;
    if (l < lo) lo = l;
    if (l > hi) hi = l;
  }
  for (let i = 0; i < s.length; i++) {
    out[i] = hi === lo ? 1.0 : (hi - s[i]!.effectiveLoad) / (hi - lo);
  }
}

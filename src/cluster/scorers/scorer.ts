import { PolicyRegistry, type PolicyDescriptor } from "../../util/policyRegistry.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import type { RoutingContext, ScorerSpec } from "../routing/context.js";

/** One signal of the weighted routing pipeline: a score in [0, 1] per candidate. */
export interface Scorer {
  readonly name: string;
  /**
   * --cache-signal-delay of a scorer that reads the instance prefix caches (`state.cache`); absent
   * for the others.
   */
  readonly cacheSignalDelay?: number;
  /** Writes one score per candidate (out[k] for state.snapshots[k]) into `out` (pre-filled with 0). */
  score(req: Request, state: RouterState, out: Float64Array): void;
  /** Called after the pick with the chosen instance's index (prefix-index and LRU updates). */
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

/** The `queue-depth` normalization over EffectiveLoad, shared by scorers that read load. */
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

/**
 * Min-max normalization of raw values out[0 .. n) in place: (hi − x)/(hi − lo) when `lowIsBetter`,
 * else (x − lo)/(hi − lo); every candidate scores 1.0 when all values are equal.
 */
export function minMaxInPlace(out: Float64Array, n: number, lowIsBetter: boolean): void {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = out[i]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  for (let i = 0; i < n; i++) {
    const x = out[i]!;
    out[i] = hi === lo ? 1.0 : lowIsBetter ? (hi - x) / (hi - lo) : (x - lo) / (hi - lo);
  }
}

import { PolicyRegistry, type PolicyDescriptor } from "../../util/policyRegistry.js";
import type { RouterState } from "../snapshot.js";
import type { RoutingContext, Scorer, ScorerChoice, ScorerSpec } from "../routing/context.js";

export type { Scorer, ScorerChoice, ScorerSpec };

export type ScorerFactory = (ctx: RoutingContext) => Scorer;

export type ScorerDescriptor<P = Record<string, never>> = PolicyDescriptor<RoutingContext, Scorer, P>;

export const scorers = new PolicyRegistry<RoutingContext, Scorer>("scorer");

/** The scorers of `specs` with their parameters read from `source` (defaults when absent). */
export function chooseScorers(
  specs: readonly ScorerSpec[],
  source: Readonly<Record<string, unknown>> = {},
): ScorerChoice[] {
  return specs.map((s) => ({ name: s.name, weight: s.weight, build: scorers.bind(s.name, source) }));
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

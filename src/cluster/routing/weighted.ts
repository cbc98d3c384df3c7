import { RoutingDecision, type RoutingContext, type RoutingDescriptor, type RoutingPolicy } from "./routing.js";
import type { RouterState } from "../snapshot.js";
import type { Request } from "../../core/request.js";
import type { Scorer } from "../scorers/scorer.js";
import { formatFixed } from "../../util/goFormat.js";
import { TIE_BREAK_FLAG, TieBreaker, tieBreakParams, type TieBreakParams } from "./tieBreak.js";

/**
 * Composable weighted scorer pipeline: argmax of the composite, ties to the first candidate or
 * broken at random (docs/behavior.md "Routing and scorers").
 */
export class WeightedRouting implements RoutingPolicy {
  readonly name = "weighted";
  readonly cacheSignalDelay?: number;
  private readonly scorers: Scorer[];
  private readonly weights: Float64Array;
  private readonly composite: Float64Array;
  private readonly scratch: Float64Array;
  private readonly ties: TieBreaker;
  private readonly d = new WeightedDecision();

  constructor(ctx: RoutingContext, tieBreak: TieBreakParams = tieBreakParams.parse({})) {
    this.scorers = ctx.scorers.map((s) => s.build(ctx));
    let sum = 0;
    for (const s of ctx.scorers) sum += s.weight;
    this.weights = Float64Array.from(ctx.scorers, (s) => s.weight / sum);
    this.composite = new Float64Array(ctx.numInstances);
    this.scratch = new Float64Array(ctx.numInstances);
    this.ties = new TieBreaker(tieBreak);
    const cached = this.scorers.find((s) => s.cacheSignalDelay !== undefined);
    if (cached?.cacheSignalDelay !== undefined) this.cacheSignalDelay = cached.cacheSignalDelay;
  }

  route(req: Request, state: RouterState): RoutingDecision {
    const n = state.snapshots.length;
    const comp = this.composite;
    comp.fill(0);
    for (let k = 0; k < this.scorers.length; k++) {
      const sc = this.scratch;
      sc.fill(0);
      this.scorers[k]!.score(req, state, sc);
      const w = this.weights[k]!;
      for (let i = 0; i < n; i++) {
        let s = sc[i]!;
        if (!(s >= 0))
          s = 0; // clamp (also maps NaN to 0)
        else if (s > 1) s = 1;
        comp[i] = comp[i]! + s * w;
      }
    }
    let best = -1;
    let bestScore = -1;
    let tied = 0;
    for (let i = 0; i < n; i++) {
      const c = comp[i]!;
      if (c > bestScore) {
        bestScore = c;
        best = i;
        tied = 1;
      } else if (c === bestScore) tied++;
    }
    if (tied > 1 && this.ties.random) best = nthEqual(comp, n, bestScore, this.ties.pick(tied));
    const chosen = state.snapshots[best]!.index;
    for (let k = 0; k < this.scorers.length; k++) this.scorers[k]!.observe(req, chosen);
    this.d.target = best;
    this.d.bestScore = bestScore;
    this.d.scores = comp;
    return this.d;
  }
}

/**
 * A weighted decision, whose reason is built when read (decision traces, debug logs): Go's %.3f
 * rounding takes BigInt arithmetic, too slow to pay on every routing decision.
 */
class WeightedDecision extends RoutingDecision {
  bestScore = 0;
  override get reason(): string {
    return `weighted-scoring (score=${formatFixed(this.bestScore, 3)})`; // Go %.3f: half to even
  }
  override set reason(_text: string) {
    // fixed by the score
  }
}

/** Position of the r-th (0-based) value equal to `v` among values[0 .. n). */
function nthEqual(values: ArrayLike<number>, n: number, v: number, r: number): number {
  for (let i = 0; i < n; i++) if (values[i] === v && r-- === 0) return i;
  return -1;
}

export const weighted: RoutingDescriptor<TieBreakParams> = {
  name: "weighted",
  description: "weighted sum of scorers",
  params: tieBreakParams,
  flags: [TIE_BREAK_FLAG],
  create: (p, c) => new WeightedRouting(c, p),
};

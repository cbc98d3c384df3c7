import { RoutingDecision, type RoutingContext, type RoutingPolicy } from "./routing.js";
import type { RouterState } from "../snapshot.js";
import type { Request } from "../../core/request.js";
import { createScorer, type Scorer } from "../scorers/scorer.js";
import { formatFixed } from "../../util/goFormat.js";

/**
 * Composable weighted scorer pipeline with first-maximum argmax (docs/behavior.md
 * "Routing and scorers").
 */
export class WeightedRouting implements RoutingPolicy {
  readonly name = "weighted";
  private readonly scorers: Scorer[];
  private readonly weights: Float64Array;
  private readonly composite: Float64Array;
  private readonly scratch: Float64Array;
  private readonly d = new RoutingDecision();

  constructor(ctx: RoutingContext) {
    this.scorers = ctx.scorers.map((s) => createScorer(s.name, ctx));
    let sum = 0;
    for (const s of ctx.scorers) sum += s.weight;
    this.weights = Float64Array.from(ctx.scorers, (s) => s.weight / sum);
    this.composite = new Float64Array(ctx.numInstances);
    this.scratch = new Float64Array(ctx.numInstances);
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
    for (let i = 0; i < n; i++) {
      if (comp[i]! > bestScore) {
        bestScore = comp[i]!;
        best = i;
      }
    }
    for (let k = 0; k < this.scorers.length; k++) this.scorers[k]!.observe(req, best);
    this.d.target = best;
    this.d.reason = `weighted-scoring (score=${formatFixed(bestScore, 3)})`; // Go %.3f: half to even
    this.d.scores = comp;
    return this.d;
  }
}

import { queueDepthScores, type Scorer } from "./scorer.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import { RouterPrefixIndex } from "./prefixIndex.js";
import { scoreByInstance } from "./prefixAffinity.js";
import { tierOf } from "../../policy/sloTiers.js";

/**
 * Per-tier blend of prefix affinity and load: α_tier·prefix + (1 − α_tier)·load (docs/behavior.md
 * "Routing and scorers").
 */
export class SloPriorityScorer implements Scorer {
  readonly name = "slo-priority";
  private readonly index: RouterPrefixIndex;
  private readonly prefix: Float64Array;
  private readonly load: Float64Array;
  private readonly byInstance: Float64Array;
  constructor(
    numInstances: number,
    blockSize: number,
    /** α by tier rank: [sheddable, standard, critical]. */
    private readonly alpha: readonly [number, number, number],
  ) {
    this.index = new RouterPrefixIndex(numInstances, blockSize);
    this.prefix = new Float64Array(numInstances);
    this.load = new Float64Array(numInstances);
    this.byInstance = new Float64Array(numInstances);
  }
  score(req: Request, state: RouterState, out: Float64Array): void {
    this.prefix.fill(0);
    scoreByInstance(this.index, req, state, this.prefix, this.byInstance);
    queueDepthScores(state, this.load);
    const a = this.alpha[tierOf(req.sloClass)]!;
    for (let i = 0; i < state.snapshots.length; i++) out[i] = a * this.prefix[i]! + (1 - a) * this.load[i]!;
  }
  observe(req: Request, chosen: number): void {
    this.index.record(req, chosen);
  }
}

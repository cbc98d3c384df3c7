import type { Scorer } from "./scorer.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import { RouterPrefixIndex } from "./prefixIndex.js";

export class PrefixAffinityScorer implements Scorer {
  readonly name = "prefix-affinity";
  private readonly index: RouterPrefixIndex;
  private readonly byInstance: Float64Array;
  constructor(numInstances: number, blockSize: number) {
    this.index = new RouterPrefixIndex(numInstances, blockSize);
    this.byInstance = new Float64Array(numInstances);
  }
  score(req: Request, state: RouterState, out: Float64Array): void {
    scoreByInstance(this.index, req, state, out, this.byInstance);
  }
  observe(req: Request, chosen: number): void {
    this.index.record(req, chosen);
  }
}

/**
 * The prefix index scores every instance by index; candidates are a subset of the instances in
 * index order, so a full list is the instance order itself.
 */
export function scoreByInstance(
  index: RouterPrefixIndex,
  req: Request,
  state: RouterState,
  out: Float64Array,
  scratch: Float64Array,
): void {
  const s = state.snapshots;
  if (s.length === scratch.length) {
    index.score(req, out);
    return;
  }
  scratch.fill(0);
  index.score(req, scratch);
  for (let k = 0; k < s.length; k++) out[k] = scratch[s[k]!.index]!;
}

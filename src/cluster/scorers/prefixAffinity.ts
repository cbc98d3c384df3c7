import type { Scorer } from "./scorer.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import { RouterPrefixIndex } from "./prefixIndex.js";

export class PrefixAffinityScorer implements Scorer {
  readonly name = "prefix-affinity";
  private readonly index: RouterPrefixIndex;
  constructor(numInstances: number, blockSize: number) {
    this.index = new RouterPrefixIndex(numInstances, blockSize);
  }
  score(req: Request, _state: RouterState, out: Float64Array): void {
    this.index.score(req, out);
  }
  observe(req: Request, chosen: number): void {
    this.index.record(req, chosen);
  }
}

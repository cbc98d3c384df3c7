import { factoryPolicy } from "../../util/policyRegistry.js";
import type { Scorer, ScorerDescriptor } from "./scorer.js";
import type { RouterState } from "../snapshot.js";
import type { Request } from "../../core/request.js";

/**
 * LoRA affinity (docs/lora.md "Routing"): 1.0 on instances whose periodically refreshed resident
 * set holds the request's adapter, 0.0 elsewhere; 1.0 for all when the request has no adapter or
 * every candidate is equally warm or cold.
 */
export class LoraAffinityScorer implements Scorer {
  readonly name = "lora-affinity";
  score(req: Request, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    const id = req.adapter;
    let warm = 0;
    if (id !== "") {
      for (let i = 0; i < s.length; i++) {
        const set = s[i]!.residentAdapters;
        out[i] = set !== null && set.has(id) ? 1 : 0;
        warm += out[i]!;
      }
    }
    if (warm === 0 || warm === s.length) for (let i = 0; i < s.length; i++) out[i] = 1;
  }
  observe(): void {}
}

export const loraAffinity: ScorerDescriptor = factoryPolicy(
  "lora-affinity",
  () => new LoraAffinityScorer(),
  "resident LoRA adapter",
);

import { queueDepthScores, type Scorer } from "./scorer.js";
import type { RouterState } from "../snapshot.js";

/** (hi − load) / (hi − lo) over EffectiveLoad; 1 for all when loads are equal. */
export class QueueDepthScorer implements Scorer {
  readonly name = "queue-depth";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    queueDepthScores(state, out);
  }
  observe(): void {}
}

/** 1 / (1 + EffectiveLoad). */
export class LoadBalanceScorer implements Scorer {
  readonly name = "load-balance";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = 1 / (1 + s[i]!.effectiveLoad);
  }
  observe(): void {}
}

/** 1 − KVUtilization. */
export class KvUtilizationScorer implements Scorer {
  readonly name = "kv-utilization";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = 1 - s[i]!.kvUtilization;
  }
  observe(): void {}
}

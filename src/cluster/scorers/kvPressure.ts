import type { Scorer } from "./scorer.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";

function pressureFactor(sloClass: string): number {
  switch (sloClass) {
    case "critical":
      return 5.0;
    case "batch":
      return 0.2;
    case "background":
      return 0.1;
    default:
      return 1.0;
  }
}

/**
 * KV headroom penalized by pending reload latency and thrashing (docs/behavior.md
 * "Routing and scorers").
 */
export class KvPressureScorer implements Scorer {
  constructor(
    readonly name: "kv-pressure" | "kv-pressure-slo",
    private readonly sloScaled: boolean,
  ) {}
  score(req: Request, state: RouterState, out: Float64Array): void {
    const m = this.sloScaled ? pressureFactor(req.sloClass) : 1.0;
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) {
      const snap = s[i]!;
      let h = 1 - snap.kvUtilization;
      if (snap.pendingTransferLatency > 0) h = h - (snap.pendingTransferLatency / 10000) * m;
      if (snap.kvThrashingRate > 0) h = h - 2 * snap.kvThrashingRate;
      out[i] = h < 0 ? 0 : h > 1 ? 1 : h;
    }
  }
  observe(): void {}
}

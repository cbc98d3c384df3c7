import type { AdmissionPolicy } from "./admission.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";

/**
 * Token bucket charged by prompt length, refilled per simulated second (docs/behavior.md
 * "Admission").
 */
export class TokenBucketAdmission implements AdmissionPolicy {
  readonly name = "token-bucket";
  reason = "";
  private level: number;
  private last = 0;
  constructor(
    private readonly capacity: number,
    private readonly refillRate: number,
  ) {
    this.level = capacity;
  }
  admit(req: Request, state: RouterState): boolean {
    const t = state.clock;
    const e = t - this.last;
    if (e > 0) {
      this.level = Math.min(this.capacity, this.level + (e * this.refillRate) / 1000000);
      this.last = t;
    }
    const cost = req.inputLen;
    if (this.level >= cost) {
      this.level = this.level - cost;
      this.reason = "";
      return true;
    }
    this.reason = "insufficient tokens";
    return false;
  }
}

import type { AdmissionPolicy } from "./admission.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import { TIER_SHEDDABLE, tierOf } from "../../policy/sloTiers.js";

/**
 * Sheds sheddable-tier traffic while the mean effective load exceeds a threshold (docs/behavior.md
 * "Admission").
 */
export class SloGatedAdmission implements AdmissionPolicy {
  readonly name = "slo-gated";
  reason = "";
  constructor(private readonly threshold: number) {}
  admit(req: Request, state: RouterState): boolean {
    const snaps = state.snapshots;
    let sum = 0;
    for (let i = 0; i < snaps.length; i++) sum += snaps[i]!.effectiveLoad;
    const load = (1 / snaps.length) * sum;
    if (tierOf(req.sloClass) === TIER_SHEDDABLE && load > this.threshold) {
      this.reason = "slo-gated";
      return false;
    }
    this.reason = "";
    return true;
  }
}

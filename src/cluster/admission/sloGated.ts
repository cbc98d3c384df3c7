import { z } from "zod";
import type { AdmissionDescriptor, AdmissionPolicy } from "./admission.js";
import { anyNumber } from "../../util/policyRegistry.js";
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

// The threshold is checked whatever the admission policy (docs/behavior.md "Validation order and
// exit status"), so the check lives in the validation stage, not in `validate`.
export const sloGatedParams = z.object({ admissionLoadThreshold: anyNumber.default(50) });

export const sloGated: AdmissionDescriptor<z.infer<typeof sloGatedParams>> = {
  name: "slo-gated",
  description: "sheds sheddable requests above a mean load",
  params: sloGatedParams,
  flags: [
    {
      key: "admissionLoadThreshold",
      flag: "--admission-load-threshold",
      type: "float",
      group: "extension",
      help: "slo-gated: mean effective load above which sheddable requests are rejected",
      bundle: "admission.load_threshold",
    },
  ],
  create: (p) => new SloGatedAdmission(p.admissionLoadThreshold),
};

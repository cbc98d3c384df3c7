import type { AdmissionPolicy } from "./admission.js";
import { factoryPolicy } from "../../util/policyRegistry.js";

export class AlwaysAdmit implements AdmissionPolicy {
  readonly name = "always-admit";
  reason = "";
  admit(): boolean {
    return true;
  }
}

/** Rejects everything (pathological test policy). */
export class RejectAll implements AdmissionPolicy {
  readonly name = "reject-all";
  reason = "reject-all";
  admit(): boolean {
    return false;
  }
}

export const alwaysAdmit = factoryPolicy("always-admit", () => new AlwaysAdmit(), "admits every request");
export const rejectAll = factoryPolicy("reject-all", () => new RejectAll(), "rejects every request");

import type { AdmissionPolicy } from "./admission.js";

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

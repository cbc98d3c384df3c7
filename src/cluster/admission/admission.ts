import { Registry } from "../../util/registry.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";

/** Decides whether a request enters the cluster (docs/behavior.md "Admission"). */
export interface AdmissionPolicy {
  readonly name: string;
  /** Reason of the last decision (traces and debug logs only). */
  reason: string;
  admit(req: Request, state: RouterState): boolean;
}

export interface AdmissionContext {
  tokenBucketCapacity: number;
  tokenBucketRefillRate: number;
  admissionLoadThreshold: number;
}

export type AdmissionFactory = (ctx: AdmissionContext) => AdmissionPolicy;

export const admissionPolicies = new Registry<AdmissionFactory>("admission policy");

import { PolicyRegistry, type PolicyDescriptor } from "../../util/policyRegistry.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";

/** Decides whether a request enters the cluster (docs/behavior.md "Admission"). */
export interface AdmissionPolicy {
  readonly name: string;
  /** Reason of the last decision (traces and debug logs only). */
  reason: string;
  admit(req: Request, state: RouterState): boolean;
}

/** An admission decision: `queued` when the gateway queue took the request (routing is then its own). */
export interface AdmissionDecision {
  admitted: boolean;
  reason: string;
  queued: boolean;
}

/** The policy's decision about `req`. */
export function decideAdmission(policy: AdmissionPolicy, req: Request, state: RouterState): AdmissionDecision {
  const admitted = policy.admit(req, state);
  return { admitted, reason: policy.reason, queued: false };
}

/** What every admission policy is built from besides its own parameters. */
export interface AdmissionContext {
  numInstances: number;
}

export type AdmissionFactory = (ctx: AdmissionContext) => AdmissionPolicy;
export type AdmissionDescriptor<P = Record<string, never>> = PolicyDescriptor<AdmissionContext, AdmissionPolicy, P>;

export const admissionPolicies = new PolicyRegistry<AdmissionContext, AdmissionPolicy>("admission policy");

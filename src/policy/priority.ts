import { PolicyRegistry, type PolicyDescriptor } from "../util/policyRegistry.js";
import type { Request } from "../core/request.js";
import type { SloParams } from "./sloTiers.js";

/**
 * Computes a waiting request's priority at the start of every step (docs/behavior.md
 * "Priorities and schedulers").
 */
export interface PriorityPolicy {
  readonly name: string;
  /** True when a request's value never changes over time: it is computed once, when the request is queued. */
  readonly isConstant: boolean;
  compute(req: Request, now: number): number;
}

export interface PriorityContext {
  slo: SloParams;
}

export type PriorityFactory = (ctx: PriorityContext) => PriorityPolicy;

export type PriorityDescriptor<P = Record<string, never>> = PolicyDescriptor<PriorityContext, PriorityPolicy, P>;

export const priorityPolicies = new PolicyRegistry<PriorityContext, PriorityPolicy>("priority policy");

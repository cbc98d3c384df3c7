import { PolicyRegistry, type PolicyDescriptor } from "../../util/policyRegistry.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import type { RoutingContext } from "./context.js";

/** A routing decision; policies reuse one object per call (read it before the next call). */
export class RoutingDecision {
  target = 0;
  reason = "";
  /** Composite scores per instance (weighted policy only), else null. */
  scores: Float64Array | null = null;
  /** Priority hint applied to the request when non-zero (docs/behavior.md "Routing and scorers"). */
  priorityHint = 0;
}

export interface RoutingPolicy {
  readonly name: string;
  route(req: Request, state: RouterState): RoutingDecision;
}

export type { RoutingContext };

export type RoutingFactory = (ctx: RoutingContext) => RoutingPolicy;

export type RoutingDescriptor<P = Record<string, never>> = PolicyDescriptor<RoutingContext, RoutingPolicy, P>;

export const routingPolicies = new PolicyRegistry<RoutingContext, RoutingPolicy>("routing policy");

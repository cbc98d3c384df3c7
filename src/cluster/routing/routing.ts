import { PolicyRegistry, type PolicyDescriptor } from "../../util/policyRegistry.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import type { RoutingContext } from "./context.js";

/** A routing decision; policies reuse one object per call (read it before the next call). */
export class RoutingDecision {
  /** Position of the chosen candidate in the router state's snapshots (its instance is `snapshots[target].index`). */
  target = 0;
  private text = "";
  /** Why this target (decision traces, debug logs); a policy may build it only when it is read. */
  get reason(): string {
    return this.text;
  }
  set reason(text: string) {
    this.text = text;
  }
  /** Composite scores per candidate position (weighted policy only), else null. */
  scores: Float64Array | null = null;
  /** Priority hint applied to the request when non-zero (docs/behavior.md "Routing and scorers"). */
  priorityHint = 0;
}

export interface RoutingPolicy {
  readonly name: string;
  /** --cache-signal-delay when one of the policy's scorers reads the instance prefix caches. */
  readonly cacheSignalDelay?: number;
  /** Picks one of `state.snapshots` (never empty: a request without candidates is not routed). */
  route(req: Request, state: RouterState): RoutingDecision;
}

export type { RoutingContext };

export type RoutingFactory = (ctx: RoutingContext) => RoutingPolicy;

export type RoutingDescriptor<P = Record<string, never>> = PolicyDescriptor<RoutingContext, RoutingPolicy, P>;

export const routingPolicies = new PolicyRegistry<RoutingContext, RoutingPolicy>("routing policy");

// The direct actuator (docs/autoscaling.md "The autoscaler"): scale-ups place new replicas, scale-downs
// drain the least-loaded routable replicas of the variant, never below min_replicas.

import { z } from "zod";
import type { PolicyDescriptor } from "../util/policyRegistry.js";
import type { Actuator, ActuatorContext, Decision } from "./types.js";

class DirectActuator implements Actuator {
  constructor(private readonly ctx: ActuatorContext) {}

  apply(decisions: readonly Decision[], now: number): void {
    for (const d of decisions) {
      const reason = d.reason ?? "";
      if (d.delta > 0) {
        for (let k = 0; k < d.delta; k++) this.ctx.scaleUp(d.model, d.variant, now, reason);
        continue;
      }
      const victims = this.ctx.drainCandidates(d.model, d.variant);
      for (let k = 0; k < -d.delta && k < victims.length; k++) this.ctx.drain(victims[k]!, now, reason);
    }
  }
}

export const directActuator: PolicyDescriptor<ActuatorContext, Actuator> = {
  name: "direct",
  description: "places and drains replicas as decided",
  params: z.object({}) as never,
  flags: [],
  create: (_p, ctx) => new DirectActuator(ctx),
};

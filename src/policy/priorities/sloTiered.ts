import type { PriorityPolicy } from "../priority.js";
import type { Request } from "../../core/request.js";
import { baseScore, tierOf, urgencyThreshold, type SloParams } from "../sloTiers.js";

/**
 * Tier base score plus linear urgency past a per-tier grace threshold (docs/behavior.md
 * "Priorities and schedulers").
 */
export class SloTieredPriority implements PriorityPolicy {
  readonly name = "slo-tiered";
  readonly isConstant = false;
  constructor(private readonly p: SloParams) {}
  compute(req: Request, now: number): number {
    const tier = tierOf(req.sloClass);
    const over = now - req.arrival - urgencyThreshold(this.p, tier);
    return baseScore(this.p, tier) + this.p.ageWeight * (over > 0 ? over : 0);
  }
}

/** The tier base score alone. */
export class SloClassPriority implements PriorityPolicy {
  readonly name = "slo-class";
  readonly isConstant = false;
  constructor(private readonly p: SloParams) {}
  compute(req: Request): number {
    return baseScore(this.p, tierOf(req.sloClass));
  }
}

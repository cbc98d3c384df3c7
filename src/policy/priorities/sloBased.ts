import type { PriorityPolicy } from "../priority.js";
import type { Request } from "../../core/request.js";

/**
 * +1 per simulated second waited. Ignores the SLO class despite its name (docs/behavior.md
 * "Priorities and schedulers").
 */
export class SloBasedPriority implements PriorityPolicy {
  readonly name = "slo-based";
  readonly isConstant = false;
  compute(req: Request, now: number): number {
    return 0.0 + 0.000001 * (now - req.arrival);
  }
}

/** Pathological inverse of slo-based: older requests get lower priority. */
export class InvertedSloPriority implements PriorityPolicy {
  readonly name = "inverted-slo";
  readonly isConstant = false;
  compute(req: Request, now: number): number {
    return 0.0 - 0.000001 * (now - req.arrival);
  }
}

import type { PriorityPolicy } from "../priority.js";
import type { Request } from "../../core/request.js";

/**
 * Today's BLIS priority: fixed by SLO class when the request is queued (docs/behavior.md
 * "Priorities and schedulers"). Values are the class map of the gateway (higher = more important),
 * which orders requests exactly as vLLM's inverted numbers (maxP − value, lower = more urgent) do.
 */
export const STATIC_CLASS_PRIORITY: Readonly<Record<string, number>> = {
  critical: 4,
  standard: 3,
  batch: -1,
  sheddable: -2,
  background: -3,
};

/** Empty and unknown classes count as standard. */
const DEFAULT_PRIORITY = 3;

/** The class map's value of an SLO class (unknown classes as standard). */
export function classPriority(sloClass: string): number {
  return STATIC_CLASS_PRIORITY[sloClass] ?? DEFAULT_PRIORITY;
}

/** vLLM's inverted number for a class (lower is more urgent): critical 0, standard 1, …, background 7. */
export function vllmClassPriority(sloClass: string): number {
  return Math.max(...Object.values(STATIC_CLASS_PRIORITY), DEFAULT_PRIORITY) - classPriority(sloClass);
}

export class StaticClassPriority implements PriorityPolicy {
  readonly name = "static-class";
  readonly isConstant = true;
  compute(req: Request): number {
    return classPriority(req.sloClass);
  }
}

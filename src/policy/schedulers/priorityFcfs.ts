import { byArrivalThenId, type Scheduler } from "../scheduler.js";
import type { Request } from "../../core/request.js";

/** Priority descending, then arrival, then ID. */
export class PriorityFcfsScheduler implements Scheduler {
  readonly name = "priority-fcfs";
  readonly reorders = true;
  compare(a: Request, b: Request): number {
    if (a.priority !== b.priority) return a.priority > b.priority ? -1 : 1;
    return byArrivalThenId(a, b);
  }
}

/** Pathological: priority ascending, then arrival, then ID. */
export class ReversePriorityScheduler implements Scheduler {
  readonly name = "reverse-priority";
  readonly reorders = true;
  compare(a: Request, b: Request): number {
    if (a.priority !== b.priority) return a.priority < b.priority ? -1 : 1;
    return byArrivalThenId(a, b);
  }
}

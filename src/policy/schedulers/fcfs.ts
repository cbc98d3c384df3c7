import type { Scheduler } from "../scheduler.js";

/** Enqueue order; preempted requests stay at the front. */
export class FcfsScheduler implements Scheduler {
  readonly name = "fcfs";
  readonly reorders = false;
  compare(): number {
    return 0;
  }
}

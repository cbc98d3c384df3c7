import { Registry } from "../util/registry.js";
import type { Request } from "../core/request.js";

/**
 * Orders an instance's wait queue with a stable sort before batch formation (docs/behavior.md
 * "Priorities and schedulers").
 */
export interface Scheduler {
  readonly name: string;
  /** False when the scheduler keeps enqueue order (lets the step skip sorting). */
  readonly reorders: boolean;
  compare(a: Request, b: Request): number;
}

export type SchedulerFactory = () => Scheduler;

export const schedulers = new Registry<SchedulerFactory>("scheduler");

/** T0 ascending, then request ID byte-wise ascending. */
export function byArrivalThenId(a: Request, b: Request): number {
  if (a.arrival !== b.arrival) return a.arrival - b.arrival;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

import { PolicyRegistry, type PolicyDescriptor } from "../util/policyRegistry.js";
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

/** Schedulers are built from nothing but their own parameters. */
export type SchedulerContext = Record<string, never>;
export type SchedulerFactory = (ctx?: SchedulerContext) => Scheduler;
export type SchedulerDescriptor<P = Record<string, never>> = PolicyDescriptor<SchedulerContext, Scheduler, P>;

export const schedulers = new PolicyRegistry<SchedulerContext, Scheduler>("scheduler");

/** T0 ascending, then request ID byte-wise ascending. */
export function byArrivalThenId(a: Request, b: Request): number {
  if (a.arrival !== b.arrival) return a.arrival - b.arrival;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

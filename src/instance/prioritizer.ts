import type { PriorityPolicy } from "../policy/priority.js";
import type { Scheduler } from "../policy/scheduler.js";
import type { Deque } from "./deque.js";
import type { Request } from "../core/request.js";

/**
 * Request priorities and wait-queue order (docs/behavior.md "Priorities and schedulers"; "The
 * step", item 2).
 */
export class Prioritizer {
  private readonly sortBuffer: Request[] = [];
  private readonly byScheduler: (a: Request, b: Request) => number;

  constructor(
    private readonly policy: PriorityPolicy,
    private readonly scheduler: Scheduler,
    /** Apply the floors set by the router priority bridge. */
    private readonly floors: boolean,
  ) {
    this.byScheduler = (a, b) => scheduler.compare(a, b);
  }

  /** At enqueue. */
  onQueued(req: Request, now: number): void {
    // A constant policy is not recomputed every step (prioritize), so it is evaluated once here.
    // That is the per-step value, and it overwrites any routing hint (docs/behavior.md#c2).
    if (this.policy.isConstant && !this.floors) req.priority = this.policy.compute(req, now);
  }

  /** At the start of a step: recomputes priorities, then sorts the wait queue (stable). */
  prioritize(wq: Deque<Request>, now: number): void {
    const n = wq.length;
    if (n === 0) return;
    const policy = this.policy;
    const floors = this.floors;
    if (!policy.isConstant || floors) {
      for (let i = 0; i < n; i++) {
        const r = wq.at(i);
        let p = policy.compute(r, now);
        if (floors && r.priorityFloor !== 0 && r.priorityFloor > p) p = r.priorityFloor;
        r.priority = p;
      }
    }
    if (this.scheduler.reorders && n > 1) {
      const arr = wq.toArray(this.sortBuffer);
      arr.sort(this.byScheduler);
      wq.assign(arr);
    }
  }
}

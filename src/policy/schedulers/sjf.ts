import { byArrivalThenId, type Scheduler } from "../scheduler.js";
import type { Request } from "../../core/request.js";

/** Shortest prompt first (all input tokens, cached or not), then arrival, then ID. */
export class SjfScheduler implements Scheduler {
  readonly name = "sjf";
  readonly reorders = true;
  compare(a: Request, b: Request): number {
    if (a.inputLen !== b.inputLen) return a.inputLen - b.inputLen;
    return byArrivalThenId(a, b);
  }
}

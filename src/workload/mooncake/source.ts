// Open-loop replay of a trace: every request at its trace arrival, in arrival order, up to the
// request cap and the horizon.

import type { RequestSource, WorkloadRequest } from "../../core/workloadRequest.js";
import type { TraceRequests } from "./requests.js";

export class MooncakeSource implements RequestSource {
  private n = 0;

  constructor(
    private readonly requests: TraceRequests,
    private readonly order: Int32Array,
    /** Most requests (Infinity = the whole trace). */
    private readonly cap: number,
    private readonly horizon: number,
  ) {}

  get produced(): number {
    return this.n;
  }

  next(): WorkloadRequest | null {
    if (this.n >= this.order.length || this.n >= this.cap) return null;
    const i = this.order[this.n]!;
    const arrival = this.requests.arrival(i);
    if (arrival >= this.horizon) return null;
    return this.requests.make(i, arrival, this.n++);
  }
}

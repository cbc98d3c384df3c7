// Closed-loop replay of a trace (docs/traces.md "Closed loop"): N requests in flight, timestamps
// ignored. The first N lines (in arrival order) arrive at tick 0; whenever one of them ends, by
// completion, drop or timeout, the next line arrives at that tick, until the trace, the request
// cap or the horizon runs out.

import { ArrayRequestSource, type RequestSource, type WorkloadRequest } from "../../core/workloadRequest.js";
import type { SessionFeed, SessionPlan, SessionTag } from "../sessions/plan.js";
import type { TraceRequests } from "./requests.js";

class TraceFeed implements SessionFeed {
  /** Requests sent so far. */
  sent = 0;
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly requests: TraceRequests,
    private readonly order: Int32Array,
    private readonly total: number,
    private readonly horizon: number,
    private readonly tags: Map<string, SessionTag>,
  ) {}

  /** The next line's request at tick t, or null when none is left. */
  send(t: number): WorkloadRequest | null {
    if (this.sent >= this.total || t > this.horizon) return null;
    const r = this.requests.make(this.order[this.sent]!, t, this.sent);
    this.sent++;
    this.inFlight.add(r.id);
    if (r.sessionId !== "") this.tags.set(r.id, { sessionId: r.sessionId, round: r.roundIndex });
    return r;
  }

  onEnd(id: string, t: number): WorkloadRequest | null {
    if (!this.inFlight.delete(id)) return null;
    return this.send(t);
  }
}

/** The first `concurrency` requests, and the plan that sends each later one when another ends. */
export function closedLoopTrace(
  requests: TraceRequests,
  order: Int32Array,
  concurrency: number,
  cap: number,
  horizon: number,
): { source: RequestSource; plan: SessionPlan } {
  const tags = new Map<string, SessionTag>();
  const total = Math.min(order.length, cap);
  const feed = new TraceFeed(requests, order, total, horizon, tags);
  const first: WorkloadRequest[] = [];
  if (horizon > 0) {
    for (let u = 0; u < concurrency; u++) {
      const r = feed.send(0);
      if (r === null) break;
      first.push(r);
    }
  }
  const plan: SessionPlan = {
    blueprints: new Map(),
    pending: new Map(),
    tags,
    budget: Infinity,
    horizon,
    users: first.length,
    feed,
  };
  return { source: new ArrayRequestSource(first), plan };
}

/**
 * Requests shed per SLO class (admission rejections, gateway shed victims, TTL expiries and
 * in-flight evictions; an empty class counts as `standard`).
 */
export class ShedTally {
  private readonly counts = new Map<string, number>();
  add(tier: string): void {
    this.counts.set(tier, (this.counts.get(tier) ?? 0) + 1);
  }
  /** Tiers with a count, sorted. */
  sorted(): [string, number][] {
    return [...this.counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

/** The gateway's part of a run's results (docs/gateway.md "Output"). */
export interface GatewayCounts {
  /** Whether the flow-control queue was on (its lines and the run report's depth chart). */
  flowControl: boolean;
  rejected: number;
  shed: number;
  expired: number;
  /** Requests whose client deadline passed in the queue (counted here only, not in timed_out_requests). */
  timedOut: number;
  evicted: number;
  /** Requests still in the queue at the end. */
  depth: number;
  dispatched: number;
  shedByTier: [string, number][];
  /** Admission rejections by the tenant-budget wrapper. */
  tenantBudgetRejected: number;
}

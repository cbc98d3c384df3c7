// What one cluster run counted, for metrics collection (src/metrics/collect.ts).

import type { Request } from "../core/request.js";
import { EV_ARRIVAL, EV_QUEUED, type EventQueue } from "../engine/eventQueue.js";
import type { Instance } from "../instance/instance.js";

export interface ClusterRunStats {
  rejected: number;
  /** Requests dropped at routing because no routable instance serves their model. */
  routingRejected: number;
  /** Requests pulled from the workload whose arrival was processed (≤ horizon). */
  arrived: number;
  routed: number;
  /** Routed requests per instance. */
  routedPerInstance: Int32Array;
  /** Requests generated in total (including those beyond the horizon that were never processed). */
  generated: number;
  /** Arrived requests neither injected nor rejected at the end (horizon): see inTransit(). */
  inTransit: number;
  clock: number;
  inFlight: Int32Array;
}

/**
 * Arrived requests neither injected nor rejected at the end: waiting for their admission or
 * routing decision (cluster events of the `pipeline` ranks), or routed but not yet in an
 * instance's wait queue (arrival and queueing delays), so the pipeline check can count them.
 */
export function inTransit(
  events: EventQueue<Request>,
  pipeline: readonly number[],
  instances: readonly Instance[],
): number {
  let n = events.count((k, req) => req !== null && pipeline.includes(k));
  for (const inst of instances)
    n += inst.events.count((k, req) => req !== null && (k === EV_ARRIVAL || k === EV_QUEUED));
  return n;
}

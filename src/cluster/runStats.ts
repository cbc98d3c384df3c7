// What one cluster run counted, for metrics collection (src/metrics/collect.ts).

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
  /** Arrived requests neither injected nor rejected at the end (horizon): see ClusterSimulator.inTransit. */
  inTransit: number;
  clock: number;
  inFlight: Int32Array;
}

// The cluster loop's hook for sampling instance state on a fixed grid of simulated time (the
// time series of reports); metrics/timeSeries.ts implements it.

export interface StateSampler {
  /** The next sample time, in ticks. */
  readonly next: number;
  /** Records every sample due at or before `t` (ticks), from the state before the event at `t`. */
  sampleUntil(t: number): void;
}

// The library's progress hook (docs/behavior.md "Progress"): a callback with a snapshot of the
// run every `intervalUs` of simulated time, and a final one. It reads counters only, so it cannot
// change results; the CLI's progress bar is one consumer.

import type { StateSampler } from "../core/stateSampler.js";
import type { Instance } from "../instance/instance.js";

export interface ProgressSnapshot {
  /** Simulated time of the snapshot, in ticks (µs). */
  clockUs: number;
  /** The run's horizon in ticks (Infinity when only the request count bounds it). */
  horizonUs: number;
  /** Requests the workload produces at most, when known (0 = unknown). */
  requestCap: number;
  /** Requests that reached an instance (routed). */
  routed: number;
  completed: number;
  droppedUnservable: number;
  /** Requests queued or running on instances. */
  inFlight: number;
  preemptions: number;
  /** True for the last snapshot, taken after the event loop ends. */
  final: boolean;
}

export interface ProgressHook {
  /** Simulated time between snapshots, in ticks (> 0). */
  intervalUs: number;
  onProgress(s: ProgressSnapshot): void;
}

/** A StateSampler that calls the hook on its grid (state before the first event at or after each point). */
export class ProgressSampler implements StateSampler {
  next: number;

  constructor(
    private readonly hook: ProgressHook,
    private readonly instances: readonly Instance[],
    private readonly horizonUs: number,
    private readonly requestCap: number,
  ) {
    this.next = hook.intervalUs;
  }

  sampleUntil(t: number): void {
    // One snapshot however many grid points were skipped: a consumer wants the latest state.
    if (this.next > t) return;
    const step = this.hook.intervalUs;
    this.next += Math.ceil((t - this.next + 1) / step) * step;
    this.hook.onProgress(this.snapshot(t, false));
  }

  /** Snapshot at `clockUs` (the final one is taken at the end clock, capped at the horizon). */
  snapshot(clockUs: number, final: boolean): ProgressSnapshot {
    let completed = 0;
    let dropped = 0;
    let inFlight = 0;
    let preemptions = 0;
    for (const inst of this.instances) {
      completed += inst.completed;
      dropped += inst.droppedUnservable;
      inFlight += inst.waitQueue.length + inst.running.length;
      preemptions += inst.preemptionCount;
    }
    return {
      clockUs: Math.min(clockUs, this.horizonUs),
      horizonUs: this.horizonUs,
      requestCap: this.requestCap,
      routed: completed + dropped + inFlight,
      completed,
      droppedUnservable: dropped,
      inFlight,
      preemptions,
      final,
    };
  }
}

/** Both samplers on one cluster slot: each keeps its own grid. */
export class SamplerPair implements StateSampler {
  constructor(
    private readonly a: StateSampler,
    private readonly b: StateSampler,
  ) {}
  get next(): number {
    return Math.min(this.a.next, this.b.next);
  }
  sampleUntil(t: number): void {
    if (this.a.next <= t) this.a.sampleUntil(t);
    if (this.b.next <= t) this.b.sampleUntil(t);
  }
}

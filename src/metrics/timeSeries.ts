// Fixed-grid samples of instance state for the time series of reports.

import type { StateSampler } from "../core/stateSampler.js";
import type { Instance } from "../instance/instance.js";
import { STATE_NAMES } from "../infra/lifecycle.js";

export const SERIES_FIELDS = [
  "queueDepth",
  "batchSize",
  "kvUtilization",
  "cpuKvUtilization",
  "inFlight",
  "completed",
  "preempted",
  "stepTimeUs",
] as const;
export type SeriesField = (typeof SERIES_FIELDS)[number];

export type SeriesBlock = Record<SeriesField, number[]>;

/** Instances per lifecycle state and nodes per sample (autoscaled runs; docs/autoscaling.md "Outputs"). */
export interface FleetSeries {
  /** Lifecycle state names, in the order of `byState`. */
  states: string[];
  /** Per state, the instance count at each sample. */
  byState: number[][];
  /** Nodes Ready and being provisioned at each sample (0 without node pools). */
  nodesReady: number[];
  nodesProvisioning: number[];
}

/** What the fleet looks like now (the autoscaler implements it). */
export interface FleetProbe {
  fleetSample(now: number): { byState: number[]; nodesReady: number; nodesProvisioning: number };
}

/** Gateway queue depth per priority band (runs with --flow-control; docs/gateway.md "Output"). */
export interface GatewaySeries {
  /** Band priorities, in the order of `depth` (bands in order of first appearance). */
  priorities: number[];
  /** Per band, the waiting requests at each sample. */
  depth: number[][];
}

/** What the gateway queue holds now (the gateway implements it). */
export interface GatewayProbe {
  depthByBand(): [number, number][];
}

/** Samples on a fixed simulated-time grid: per instance, and the cluster (sums; utilizations averaged). */
export interface TimeSeries {
  intervalUs: number;
  timesUs: number[];
  instances: SeriesBlock[];
  cluster: SeriesBlock;
  /** Only in runs with node pools, lifecycle or autoscaler keys. */
  fleet?: FleetSeries;
  /** Only in runs with the gateway queue. */
  gateway?: GatewaySeries;
}

function emptyBlock(): SeriesBlock {
  return {
    queueDepth: [],
    batchSize: [],
    kvUtilization: [],
    cpuKvUtilization: [],
    inFlight: [],
    completed: [],
    preempted: [],
    stepTimeUs: [],
  };
}

function zeroBlock(n: number): SeriesBlock {
  const b = emptyBlock();
  for (const f of SERIES_FIELDS) for (let k = 0; k < n; k++) b[f].push(0);
  return b;
}

/**
 * Values the series may hold (samples × fields × (instances + 1)) before the grid coarsens: about
 * 32 MB of numbers, whatever --report-interval asks for.
 */
export const MAX_SERIES_VALUES = 4_000_000;
/** Samples kept at most, however few the instances (the report thins them to a few hundred anyway). */
export const MAX_SERIES_SAMPLES = 100_000;

/** Keeps the samples at even multiples of the interval (indices 1, 3, 5, …: times 2·i, 4·i, …). */
function keepOdd(a: number[]): void {
  let w = 0;
  for (let r = 1; r < a.length; r += 2) a[w++] = a[r]!;
  a.length = w;
}

/**
 * Records instance state at t = interval, 2·interval, … as seen just before the first event at or
 * after each grid point. Costs O(instances) per grid point and nothing per event. When the series
 * reaches its size cap the interval doubles and every other sample goes, so memory stays bounded
 * for any interval and run length (`series.intervalUs` is then the interval actually used).
 */
export class TimeSeriesRecorder implements StateSampler {
  next: number;
  readonly series: TimeSeries;

  constructor(
    private readonly instances: readonly Instance[],
    private readonly inFlight: Int32Array,
    readonly intervalUs: number,
    private readonly fleet: FleetProbe | null = null,
    private readonly gateway: GatewayProbe | null = null,
  ) {
    this.next = intervalUs;
    this.series = { intervalUs, timesUs: [], instances: instances.map(emptyBlock), cluster: emptyBlock() };
    if (fleet !== null) {
      this.series.fleet = {
        states: [...STATE_NAMES],
        byState: STATE_NAMES.map(() => []),
        nodesReady: [],
        nodesProvisioning: [],
      };
    }
    if (gateway !== null) this.series.gateway = { priorities: [], depth: [] };
  }

  /** Takes every grid sample up to and including `t`. */
  sampleUntil(t: number): void {
    while (this.next <= t) {
      if (this.series.timesUs.length >= this.capacity()) {
        this.coarsen();
        continue;
      }
      this.sample(this.next);
      this.next += this.series.intervalUs;
    }
  }

  private capacity(): number {
    const perSample = SERIES_FIELDS.length * (this.instances.length + 1);
    return Math.max(2, Math.min(MAX_SERIES_SAMPLES, Math.floor(MAX_SERIES_VALUES / perSample)));
  }

  /** Doubles the interval: keeps the samples on the coarser grid; the next sample moves onto it. */
  private coarsen(): void {
    const s = this.series;
    s.intervalUs *= 2;
    keepOdd(s.timesUs);
    for (const blk of [...s.instances, s.cluster]) for (const f of SERIES_FIELDS) keepOdd(blk[f]);
    if (s.fleet !== undefined)
      for (const a of [...s.fleet.byState, s.fleet.nodesReady, s.fleet.nodesProvisioning]) keepOdd(a);
    if (s.gateway !== undefined) for (const a of s.gateway.depth) keepOdd(a);
    const last = s.timesUs[s.timesUs.length - 1] ?? 0;
    this.next = last + s.intervalUs;
  }

  private sample(t: number): void {
    const s = this.series;
    // Instances added during the run (autoscaling) read 0 before they existed.
    while (s.instances.length < this.instances.length) s.instances.push(zeroBlock(s.timesUs.length));
    s.timesUs.push(t);
    const c = s.cluster;
    let q = 0;
    let b = 0;
    let kv = 0;
    let cpu = 0;
    let fl = 0;
    let done = 0;
    let pre = 0;
    let step = 0;
    for (let i = 0; i < this.instances.length; i++) {
      const inst = this.instances[i]!;
      const blk = s.instances[i]!;
      const cpuUtil = inst.kv.cpuUtilization();
      blk.queueDepth.push(inst.waitQueue.length);
      blk.batchSize.push(inst.running.length);
      blk.kvUtilization.push(inst.kv.utilization());
      blk.cpuKvUtilization.push(cpuUtil);
      blk.inFlight.push(this.inFlight[i]!);
      blk.completed.push(inst.completed);
      blk.preempted.push(inst.preemptionCount);
      blk.stepTimeUs.push(inst.lastStepDuration);
      q += inst.waitQueue.length;
      b += inst.running.length;
      kv += inst.kv.utilization();
      cpu += cpuUtil;
      fl += this.inFlight[i]!;
      done += inst.completed;
      pre += inst.preemptionCount;
      step += inst.lastStepDuration;
    }
    const n = this.instances.length;
    c.queueDepth.push(q);
    c.batchSize.push(b);
    c.kvUtilization.push(kv / n);
    c.cpuKvUtilization.push(cpu / n);
    c.inFlight.push(fl);
    c.completed.push(done);
    c.preempted.push(pre);
    c.stepTimeUs.push(step / n);
    if (this.fleet !== null) this.sampleFleet(t);
    if (this.gateway !== null) this.sampleGateway();
  }

  /** A band first seen now reads 0 at the earlier samples. */
  private sampleGateway(): void {
    const g = this.series.gateway!;
    const n = this.series.timesUs.length;
    for (const [p, size] of this.gateway!.depthByBand()) {
      let k = g.priorities.indexOf(p);
      if (k < 0) {
        k = g.priorities.push(p) - 1;
        g.depth.push(new Array<number>(n - 1).fill(0));
      }
      g.depth[k]!.push(size);
    }
  }

  private sampleFleet(t: number): void {
    const f = this.series.fleet!;
    const now = this.fleet!.fleetSample(t);
    f.byState.forEach((col, k) => col.push(now.byState[k] ?? 0));
    f.nodesReady.push(now.nodesReady);
    f.nodesProvisioning.push(now.nodesProvisioning);
  }
}

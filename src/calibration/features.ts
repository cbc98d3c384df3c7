// Per-request step-time features (docs/calibration.md "Fit"): for a fixed schedule, a request's
// TTFT and E2E are linear in the coefficients. A request's TTFT is trunc(α0) + the steps from its
// enqueue to the end of its first-token step (the step in progress at enqueue by the fraction
// still to run) + α2; its E2E adds the steps in which it decoded, α2 per decode step and α1. On
// the seed timeline the final step counts twice in E2E (docs/behavior.md#q3).

import type { Request } from "../core/request.js";
import type { StepProbe } from "../instance/stepProbe.js";
import { NUM_FEATURES, type FeatureModel } from "../latency/trainedPhysics.js";
import type { LatencyModel } from "../latency/model.js";
import { UserError } from "../util/errors.js";

function isFeatureModel(m: LatencyModel): m is LatencyModel & FeatureModel {
  return typeof (m as Partial<FeatureModel>).stepFeatures === "function";
}

const K = NUM_FEATURES;

/** One instance's step history: start times, durations and prefix sums of features. */
class StepLog {
  start = new Float64Array(1024);
  dur = new Float64Array(1024);
  /** cum[s*K + j] = Σ over steps 1..s of feature j (step indices start at 1). */
  cum = new Float64Array(1024 * K);
  last = 0;

  push(stepIdx: number, now: number, d: number, f: Float64Array): void {
    if (stepIdx + 1 > this.start.length) this.grow(stepIdx + 1);
    this.start[stepIdx] = now;
    this.dur[stepIdx] = d;
    const o = stepIdx * K;
    const p = (stepIdx - 1) * K;
    for (let j = 0; j < K; j++) this.cum[o + j] = this.cum[p + j]! + f[j]!;
    this.last = stepIdx;
  }

  private grow(n: number): void {
    let cap = this.start.length;
    while (cap < n) cap *= 2;
    const s = new Float64Array(cap);
    s.set(this.start);
    this.start = s;
    const d = new Float64Array(cap);
    d.set(this.dur);
    this.dur = d;
    const c = new Float64Array(cap * K);
    c.set(this.cum);
    this.cum = c;
  }

  /** Adds w × (Σ features of steps a..b) to out (1 ≤ a ≤ b ≤ last). */
  addRange(a: number, b: number, w: number, out: Float64Array, o: number): void {
    if (b < a) return;
    const hi = b * K;
    const lo = (a - 1) * K;
    for (let j = 0; j < K; j++) out[o + j] = out[o + j]! + w * (this.cum[hi + j]! - this.cum[lo + j]!);
  }

  /** The last step starting at or before t (0 if none). */
  stepAt(t: number): number {
    let lo = 1;
    let hi = this.last;
    let ans = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.start[mid]! <= t) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }
}

/**
 * Records, per request (by arrival sequence), the TTFT and E2E feature vectors and the number of
 * ITL entries. Attach as RunHooks.stepProbe; read `ttft`, `e2e` and `itlEntries` after the run.
 */
export class FeatureProbe implements StepProbe {
  private readonly logs: StepLog[] = [];
  private readonly tmp = new Float64Array(K);
  enqueue = new Float64Array(1024);
  ttft = new Float64Array(1024 * K);
  e2e = new Float64Array(1024 * K);
  /** Decode steps, plus the duplicated final entry on the seed timeline. */
  itlEntries = new Int32Array(1024);
  private seedTimeline = false;

  private log(i: number): StepLog {
    let l = this.logs[i];
    if (l === undefined) {
      l = new StepLog();
      this.logs[i] = l;
    }
    return l;
  }

  private ensure(seq: number): void {
    if (seq < this.enqueue.length) return;
    let cap = this.enqueue.length;
    while (cap <= seq) cap *= 2;
    const grow = <T extends Float64Array | Int32Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.enqueue = grow(this.enqueue, cap);
    this.ttft = grow(this.ttft, cap * K);
    this.e2e = grow(this.e2e, cap * K);
    this.itlEntries = grow(this.itlEntries, cap);
  }

  onQueued(_instance: number, r: Request, now: number): void {
    this.ensure(r.seq);
    this.enqueue[r.seq] = now;
  }

  onStep(
    instance: number,
    stepIdx: number,
    now: number,
    duration: number,
    batch: readonly Request[],
    count: number,
    model: LatencyModel,
  ): void {
    if (!isFeatureModel(model)) {
      throw new UserError("fitting needs a latency model with fittable coefficients (trained-physics or blackbox)");
    }
    this.seedTimeline = model.timeline === "seed";
    model.stepFeatures(batch, count, this.tmp);
    this.log(instance).push(stepIdx, now, duration, this.tmp);
  }

  onFirstToken(instance: number, r: Request, stepIdx: number): void {
    const log = this.log(instance);
    const o = r.seq * K;
    this.ttft.fill(0, o, o + K);
    const te = this.enqueue[r.seq]!;
    let s0 = log.stepAt(te);
    if (s0 === 0) s0 = 1;
    else {
      const end = log.start[s0]! + log.dur[s0]!;
      if (log.start[s0]! < te) {
        // The step in progress at enqueue counts by the fraction still to run.
        if (te < end && s0 <= stepIdx) log.addRange(s0, s0, (end - te) / log.dur[s0]!, this.ttft, o);
        s0++;
      }
    }
    log.addRange(s0, stepIdx, 1, this.ttft, o);
  }

  onComplete(instance: number, r: Request, stepIdx: number): void {
    const log = this.log(instance);
    const o = r.seq * K;
    for (let j = 0; j < K; j++) this.e2e[o + j] = this.ttft[o + j]!;
    let n = 0;
    const runs = r.decodeRuns;
    if (runs !== null) {
      for (let k = 0; k < runs.length; k += 2) {
        // A closed run covers steps [start, end).
        log.addRange(runs[k]!, runs[k + 1]! - 1, 1, this.e2e, o);
        n += runs[k + 1]! - runs[k]!;
      }
    }
    if (r.decodeRunStart >= 0) {
      log.addRange(r.decodeRunStart, stepIdx, 1, this.e2e, o);
      n += stepIdx - r.decodeRunStart + 1;
    }
    if (this.seedTimeline && r.outputLen > 0) {
      // The completion repeats the final step's ITL entry.
      log.addRange(stepIdx, stepIdx, 1, this.e2e, o);
      n++;
    }
    this.itlEntries[r.seq] = n;
  }
}

import type { Request } from "../core/request.js";

/**
 * The instance's pooled inter-token gaps without a per-request list (docs/architecture.md
 * "Hot-path memory layout"): each step's ITL value, and a difference array of how many completed
 * requests have an ITL entry at each step (+1 where a run of decode steps starts, −1 after it ends).
 */
export class PooledItl {
  /** ITL value (d + α2) of each step, indexed by step number. */
  private stepVal = new Float64Array(64);
  private runDiff = new Int32Array(64);

  record(stepIdx: number, itlVal: number): void {
    if (stepIdx + 2 > this.stepVal.length) {
      const cap = this.stepVal.length * 2;
      const v = new Float64Array(cap);
      v.set(this.stepVal);
      this.stepVal = v;
      const rd = new Int32Array(cap);
      rd.set(this.runDiff);
      this.runDiff = rd;
    }
    this.stepVal[stepIdx] = itlVal;
  }

  /** The ITL value of step `stepIdx` (PD: a decode sub-request's first entry). */
  valueAt(stepIdx: number): number {
    return this.stepVal[stepIdx]!;
  }

  /** x plus the ITL values of steps from .. to, added one by one in step order. */
  addValues(x: number, from: number, to: number): number {
    const v = this.stepVal;
    for (let s = from; s <= to; s++) x += v[s]!;
    return x;
  }

  /**
   * Pools the ITL entries of r, completing at stepIdx: its closed decode runs, the open one (which
   * ends with this step) and, when `duplicate`, the repeated final entry (docs/behavior.md#q3).
   */
  addCompleted(r: Request, stepIdx: number, duplicate: boolean): void {
    const diff = this.runDiff;
    if (r.decodeRunStart >= 0) {
      diff[r.decodeRunStart]!++;
      diff[stepIdx + 1]!--;
    }
    if (duplicate) {
      diff[stepIdx]!++;
      diff[stepIdx + 1]!--;
    }
    if (r.decodeRuns !== null) {
      const runs = r.decodeRuns;
      for (let k = 0; k < runs.length; k += 2) {
        diff[runs[k]!]!++;
        diff[runs[k + 1]!]!--;
      }
    }
  }

  /** Adds the pooled entries of steps 1 .. stepCount to `into` as value → count. */
  collect(into: Map<number, number>, stepCount: number): void {
    let active = 0;
    for (let s = 1; s <= stepCount; s++) {
      active += this.runDiff[s]!;
      if (active > 0) {
        const v = this.stepVal[s]!;
        into.set(v, (into.get(v) ?? 0) + active);
      }
    }
  }
}

/** Ends r's open run of consecutive decode steps before stepIdx (a step r does not advance in). */
export function closeDecodeRun(r: Request, stepIdx: number): void {
  if (r.decodeRunStart < 0) return;
  (r.decodeRuns ??= []).push(r.decodeRunStart, stepIdx);
  r.decodeRunStart = -1;
}

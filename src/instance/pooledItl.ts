import type { Request } from "../core/request.js";
import { InvariantError } from "../util/errors.js";
import type { Deque } from "./deque.js";
import { OrderedCounts } from "./orderedCounts.js";

/**
 * The instance's pooled inter-token gaps without a per-request list (docs/architecture.md
 * "Hot-path memory layout"): each step's ITL value, and a difference array of how many completed
 * requests have an ITL entry at each step (+1 where a run of decode steps starts, −1 after it ends).
 *
 * Only a window of steps is kept: steps before the earliest one a request still in the instance
 * can refer to (`oldest`) are final, and are folded into a value → count map when the window
 * would otherwise grow, so memory follows the requests in flight rather than the run's length.
 */
export class PooledItl {
  /** ITL value (d + α2) of each step of the window, indexed by step number − base. */
  private stepVal = new Float64Array(64);
  private runDiff = new Int32Array(64);
  /** Step number of the window's first entry. */
  private base = 0;
  /** Completed requests with an entry at step base − 1 (the folded diffs' sum). */
  private carry = 0;
  /** Pooled entries of the folded steps, value → count, in first-occurrence order. */
  private readonly folded = new OrderedCounts();
  /**
   * Earliest step a request still in the instance can refer to (its decode runs, its scheduling
   * step); null: steps are never folded (their values are read after the run, PD).
   */
  oldest: (() => number) | null = null;

  /** Steps the window can hold before it folds or grows. */
  get windowLength(): number {
    return this.stepVal.length;
  }

  record(stepIdx: number, itlVal: number): void {
    if (stepIdx - this.base + 2 > this.stepVal.length) this.makeRoom(stepIdx);
    this.stepVal[stepIdx - this.base] = itlVal;
  }

  /** Folds the final steps when that frees half the window, else doubles it. */
  private makeRoom(stepIdx: number): void {
    const cap = this.stepVal.length;
    if (this.oldest !== null) {
      const o = this.oldest();
      const bound = o < stepIdx ? o : stepIdx;
      if (bound - this.base >= cap / 2) {
        this.fold(bound);
        return;
      }
    }
    const v = new Float64Array(cap * 2);
    v.set(this.stepVal);
    this.stepVal = v;
    const rd = new Int32Array(cap * 2);
    rd.set(this.runDiff);
    this.runDiff = rd;
  }

  /** Moves steps base .. bound − 1 into `folded` and slides the window to start at bound. */
  private fold(bound: number): void {
    const n = bound - this.base;
    this.carry = this.pool(this.folded, this.base, bound - 1, this.carry);
    const used = this.stepVal.length;
    this.stepVal.copyWithin(0, n, used);
    this.runDiff.copyWithin(0, n, used);
    this.runDiff.fill(0, used - n);
    this.base = bound;
  }

  /**
   * Adds the pooled entries of steps from .. to to `into`; `active` counts the entries at from − 1. Returns it at `to`.
   */
  private pool(into: OrderedCounts, from: number, to: number, active: number): number {
    const diff = this.runDiff;
    const val = this.stepVal;
    const base = this.base;
    // Consecutive steps often take the same time: their entries are added to the map once per
    // run of equal values (integer counts, so the sums are exact; a value enters the map before
    // any other value is touched, so the first-occurrence order stays).
    let runVal = 0;
    let runCount = 0;
    for (let s = from; s <= to; s++) {
      active += diff[s - base]!;
      if (active > 0 && s >= 1) {
        const v = val[s - base]!;
        if (runCount > 0 && v !== runVal) {
          into.add(runVal, runCount);
          runCount = 0;
        }
        runVal = v;
        runCount += active;
      }
    }
    if (runCount > 0) into.add(runVal, runCount);
    return active;
  }

  /** The ITL value of step `stepIdx` (PD: a decode sub-request's first entry). */
  valueAt(stepIdx: number): number {
    return this.stepVal[this.at(stepIdx)]!;
  }

  /** x plus the ITL values of steps from .. to, added one by one in step order. */
  addValues(x: number, from: number, to: number): number {
    const v = this.stepVal;
    const end = to - this.base;
    for (let s = this.at(from); s <= end; s++) x += v[s]!;
    return x;
  }

  /** Window index of step s: a step already folded is a bookkeeping bug, not a wrong number. */
  private at(s: number): number {
    const i = s - this.base;
    if (i < 0) throw new InvariantError(`pooled ITL: step ${s} was folded (window starts at ${this.base})`);
    return i;
  }

  /**
   * Pools the ITL entries of r, completing at stepIdx: its closed decode runs, the open one (which
   * ends with this step) and, when `duplicate`, the repeated final entry (docs/behavior.md#q3).
   */
  addCompleted(r: Request, stepIdx: number, duplicate: boolean): void {
    const diff = this.runDiff;
    const end = this.at(stepIdx + 1);
    if (r.decodeRunStart >= 0) {
      diff[this.at(r.decodeRunStart)]!++;
      diff[end]!--;
    }
    if (duplicate) {
      diff[end - 1]!++;
      diff[end]!--;
    }
    if (r.decodeRuns !== null) {
      const runs = r.decodeRuns;
      for (let k = 0; k < runs.length; k += 2) {
        diff[this.at(runs[k]!)]!++;
        diff[this.at(runs[k + 1]!)]!--;
      }
    }
  }

  /** Adds the pooled entries of steps 1 .. stepCount to `into` as value → count. */
  collect(into: Map<number, number>, stepCount: number): void {
    this.folded.addTo(into);
    // The window's entries are pooled apart (collect() leaves the instance as it is) and join
    // `into` after the folded ones, in the order they first occur: as if pooled into it directly.
    const window = new OrderedCounts();
    this.pool(window, this.base, stepCount, this.carry);
    window.addTo(into);
  }
}

/** Ends r's open run of consecutive decode steps before stepIdx (a step r does not advance in). */
export function closeDecodeRun(r: Request, stepIdx: number): void {
  if (r.decodeRunStart < 0) return;
  (r.decodeRuns ??= []).push(r.decodeRunStart, stepIdx);
  r.decodeRunStart = -1;
}

/** The earliest step a running or waiting request refers to, at most `now` (PooledItl.oldest). */
export function oldestStepReferenced(now: number, running: readonly Request[], waiting: Deque<Request>): number {
  let o = now;
  for (let i = 0; i < running.length; i++) o = oldestOf(running[i]!, o);
  for (let i = 0; i < waiting.length; i++) o = oldestOf(waiting.at(i), o);
  return o;
}

function oldestOf(r: Request, o: number): number {
  if (r.scheduledStep > 0 && r.scheduledStep < o) o = r.scheduledStep;
  if (r.decodeRunStart >= 0 && r.decodeRunStart < o) o = r.decodeRunStart;
  if (r.decodeRuns !== null && r.decodeRuns[0]! < o) o = r.decodeRuns[0]!;
  return o;
}

import type { Request } from "../core/request.js";
import type { PooledItl } from "./pooledItl.js";

/** A member is due at most this many steps after it entered (it may always leave early). */
export const MAX_AHEAD = 64;
/** Due-step buckets: a ring longer than MAX_AHEAD. */
const RING = 128;

/**
 * Requests in plain decode that the step leaves out of its batch (docs/architecture.md "The step
 * without visiting every request"). In a step where every request gets its token, such a request
 * only adds one token: PI, computed tokens, tail fill and ITL count go up by one and the step's
 * ITL value is added to its ITL sum. A member stays out until `dueStep`, at the latest its first
 * step that does more (fills or needs a KV block, or completes), and is brought up to date when it
 * leaves. The latency model sees members through their count and PI sum.
 */
export class DecodeCohort {
  /** Members. */
  count = 0;
  /** Σ PI of the members at the start of the coming step. */
  piSum = 0;
  /** Members by due step modulo RING, in the order they entered. */
  private readonly buckets: (Request | null)[][] = Array.from({ length: RING }, () => []);
  private readonly sizes = new Int32Array(RING);

  constructor(private readonly itl: PooledItl) {}

  /** Adds r, up to date after step `step`, due at step `dueStep` (step + 1 < dueStep ≤ step + MAX_AHEAD). */
  enter(r: Request, step: number, dueStep: number): void {
    r.steady = true;
    r.syncStep = step;
    r.dueStep = dueStep;
    this.count++;
    this.piSum += r.pi;
    const b = dueStep & (RING - 1);
    const k = this.sizes[b]!;
    const bucket = this.buckets[b]!;
    if (k < bucket.length) bucket[k] = r;
    else bucket.push(r);
    this.sizes[b] = k + 1;
  }

  /** After every step: each member advanced by one token. */
  endStep(): void {
    this.piSum += this.count;
  }

  /**
   * Removes the members due at `step`, brought up to date to its start, into out[0 .. result);
   * out is written by index and never shortened (emptying an array frees its storage, and the
   * next step would allocate it again).
   */
  takeDue(step: number, out: Request[]): number {
    const b = step & (RING - 1);
    const k = this.sizes[b]!;
    if (k === 0) return 0;
    const bucket = this.buckets[b]!;
    for (let i = 0; i < k; i++) {
      const r = bucket[i]!;
      bucket[i] = null;
      this.leave(r, step);
      out[i] = r;
    }
    this.sizes[b] = 0;
    return k;
  }

  /** Removes every member, brought up to date to the start of `step`. */
  drain(step: number): void {
    for (let b = 0; b < RING; b++) {
      const k = this.sizes[b]!;
      const bucket = this.buckets[b]!;
      for (let i = 0; i < k; i++) {
        this.leave(bucket[i]!, step);
        bucket[i] = null;
      }
      this.sizes[b] = 0;
    }
  }

  private leave(r: Request, step: number): void {
    const k = step - 1 - r.syncStep;
    if (k > 0) {
      r.itlSum = this.itl.addValues(r.itlSum, r.syncStep + 1, step - 1);
      r.pi += k;
      r.computed += k;
      r.tailFill += k;
      r.itlCount += k;
    }
    r.numNewTokens = 1;
    r.syncStep = step - 1;
    r.steady = false;
    this.count--;
    this.piSum -= r.pi;
  }
}

/** Insertion sort of a[0 .. n): requests due together mostly entered the cohort together, in batch order. */
export function sortByBatchOrder(a: Request[], n: number): void {
  for (let i = 1; i < n; i++) {
    const r = a[i]!;
    const key = r.batchOrder;
    let j = i - 1;
    while (j >= 0 && a[j]!.batchOrder > key) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = r;
  }
}

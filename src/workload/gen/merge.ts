// K-way merge of client streams (docs/behavior.md "Order, cap and numbering"): requests leave in
// order of (arrival, client index, generation order), the first N are kept and numbered
// request_<n>. Only one pending head per client exists (plus session rounds), so memory stays
// bounded.

import type { RequestSource, WorkloadRequest } from "../../core/workloadRequest.js";
import type { ClientStream } from "./streams.js";

export class MergedSource implements RequestSource {
  private readonly heap: number[] = [];
  private readonly heads: Float64Array;
  private count = 0;

  /** `limit` = request cap N (Infinity = none). */
  constructor(
    private readonly streams: readonly ClientStream[],
    private readonly limit: number,
  ) {
    this.heads = new Float64Array(streams.length);
    for (let i = 0; i < streams.length; i++) {
      const s = streams[i]!;
      if (s.done) continue;
      this.heads[i] = s.head;
      this.heap.push(i);
    }
    // Heapify (indices were pushed in increasing order; sift from the middle).
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  get produced(): number {
    return this.count;
  }

  private less(a: number, b: number): boolean {
    const ha = this.heads[a]!;
    const hb = this.heads[b]!;
    return ha < hb || (ha === hb && a < b);
  }

  private siftDown(start: number): void {
    const heap = this.heap;
    const n = heap.length;
    let i = start;
    const item = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.less(heap[r]!, heap[l]!) ? r : l;
      if (!this.less(heap[m]!, item)) break;
      heap[i] = heap[m]!;
      i = m;
    }
    heap[i] = item;
  }

  next(): WorkloadRequest | null {
    if (this.count >= this.limit || this.heap.length === 0) return null;
    const ci = this.heap[0]!;
    const stream = this.streams[ci]!;
    const req = stream.take();
    req.setIdNumber(this.count);
    this.count++;
    if (stream.done) {
      const last = this.heap.pop()!;
      if (this.heap.length > 0) {
        this.heap[0] = last;
        this.siftDown(0);
      }
    } else {
      this.heads[ci] = stream.head;
      this.siftDown(0);
    }
    return req;
  }
}

/** A source that produces nothing (horizon ≤ 0). */
export class EmptySource implements RequestSource {
  readonly produced = 0;
  next(): WorkloadRequest | null {
    return null;
  }
}

// Min-heap over a fixed set of items 0 .. n−1 keyed by a time, lowest index first on equal times:
// the cluster's choice of which instance runs next, O(log n) per change instead of a scan of all
// instances per event.

export class IndexHeap {
  /** Key of each item (Infinity = nothing scheduled). */
  private readonly key: Float64Array;
  /** heap[k] = item at heap position k. */
  private readonly heap: Int32Array;
  /** pos[i] = heap position of item i. */
  private readonly pos: Int32Array;

  constructor(readonly size: number) {
    this.key = new Float64Array(size).fill(Infinity);
    this.heap = new Int32Array(size);
    this.pos = new Int32Array(size);
    for (let i = 0; i < size; i++) {
      this.heap[i] = i;
      this.pos[i] = i;
    }
  }

  /** The item with the smallest key (lowest index among equals); -1 when empty. */
  top(): number {
    return this.size === 0 ? -1 : this.heap[0]!;
  }

  /** Smallest key (Infinity when nothing is scheduled). */
  topKey(): number {
    return this.size === 0 ? Infinity : this.key[this.heap[0]!]!;
  }

  /** Smallest key among the items other than top() (Infinity when there are none). */
  secondKey(): number {
    const n = this.size;
    const a = n > 1 ? this.key[this.heap[1]!]! : Infinity;
    const b = n > 2 ? this.key[this.heap[2]!]! : Infinity;
    return a < b ? a : b;
  }

  keyOf(i: number): number {
    return this.key[i]!;
  }

  /** Sets item i's key and restores the heap order. */
  update(i: number, k: number): void {
    const old = this.key[i]!;
    if (k === old) return;
    this.key[i] = k;
    if (k < old) this.up(this.pos[i]!);
    else this.down(this.pos[i]!);
  }

  private less(a: number, b: number): boolean {
    const ka = this.key[a]!;
    const kb = this.key[b]!;
    return ka < kb || (ka === kb && a < b);
  }

  private up(p: number): void {
    const heap = this.heap;
    const item = heap[p]!;
    while (p > 0) {
      const parent = (p - 1) >> 1;
      const pi = heap[parent]!;
      if (!this.less(item, pi)) break;
      heap[p] = pi;
      this.pos[pi] = p;
      p = parent;
    }
    heap[p] = item;
    this.pos[item] = p;
  }

  private down(p: number): void {
    const heap = this.heap;
    const n = this.size;
    const item = heap[p]!;
    for (;;) {
      let c = 2 * p + 1;
      if (c >= n) break;
      if (c + 1 < n && this.less(heap[c + 1]!, heap[c]!)) c++;
      const ci = heap[c]!;
      if (!this.less(ci, item)) break;
      heap[p] = ci;
      this.pos[ci] = p;
      p = c;
    }
    heap[p] = item;
    this.pos[item] = p;
  }
}

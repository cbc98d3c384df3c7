// Doubly linked free list over block IDs, ordered from "evict first" (head) to "evict last" (tail).
//
// Blocks that were never touched form one contiguous run in ID order (initially the whole list).
// That run is represented by a single sentinel node so a cache of a million blocks costs nothing
// until blocks are actually used; per-block arrays grow with the high-water mark.

export const NIL = -1;
/** Sentinel node standing for the run of untouched blocks [highWater, total). */
export const VIRGIN = -2;

export class FreeList {
  prev: Int32Array;
  next: Int32Array;
  head: number;
  tail: number;
  private vPrev = NIL;
  private vNext = NIL;
  /** Blocks with ID < highWater have been materialized. */
  highWater = 0;
  /** Called when highWater passes the per-block arrays' capacity. */
  onGrow: (capacity: number) => void = () => {};

  constructor(
    readonly total: number,
    initialCapacity: number,
  ) {
    const cap = Math.max(1, Math.min(total, initialCapacity));
    this.prev = new Int32Array(cap);
    this.next = new Int32Array(cap);
    this.head = total > 0 ? VIRGIN : NIL;
    this.tail = this.head;
  }

  get capacity(): number {
    return this.prev.length;
  }

  private getNext(b: number): number {
    return b === VIRGIN ? this.vNext : this.next[b]!;
  }
  private getPrev(b: number): number {
    return b === VIRGIN ? this.vPrev : this.prev[b]!;
  }
  private setNext(b: number, v: number): void {
    if (b === VIRGIN) this.vNext = v;
    else this.next[b] = v;
  }
  private setPrev(b: number, v: number): void {
    if (b === VIRGIN) this.vPrev = v;
    else this.prev[b] = v;
  }

  /** Removes and returns the head block ID, or NIL when the list is empty. */
  popHead(): number {
    const h = this.head;
    if (h === NIL) return NIL;
    if (h !== VIRGIN) {
      this.unlink(h);
      return h;
    }
    const b = this.highWater++;
    if (b >= this.prev.length) this.grow(b + 1);
    if (this.highWater === this.total) this.unlink(VIRGIN);
    return b;
  }

  /**
   * Removes the first n blocks (n at most the list's length) into out[at, at + n) in list order:
   * what n popHead() calls return, without relinking each block (a taken block's links are never
   * read) and with the untouched run taken in one piece.
   */
  popHeadRunInto(out: Int32Array, at: number, n: number): void {
    const end = at + n;
    let next = this.next;
    let i = at;
    let h = this.head;
    while (i < end) {
      if (h !== VIRGIN) {
        out[i++] = h;
        h = next[h]!;
        continue;
      }
      i = this.takeUntouched(out, i, end);
      next = this.next; // grown with the untouched blocks taken
      if (this.highWater < this.total) break;
      // The untouched run is used up: its node leaves the list.
      h = this.vNext;
      this.vPrev = NIL;
      this.vNext = NIL;
    }
    this.head = h;
    if (h === NIL) this.tail = NIL;
    else this.setPrev(h, NIL);
  }

  /** Takes untouched blocks into out[i, end) while there are any; returns where it stopped. */
  private takeUntouched(out: Int32Array, i: number, end: number): number {
    const m = Math.min(end - i, this.total - this.highWater);
    if (this.highWater + m > this.prev.length) this.grow(this.highWater + m);
    for (let j = 0; j < m; j++) out[i++] = this.highWater++;
    return i;
  }

  /** First materialized block from the head satisfying `pred`, skipping the untouched run. */
  findFromHead(pred: (b: number) => boolean): number {
    for (let b = this.head; b !== NIL; b = this.getNext(b)) {
      if (b !== VIRGIN && pred(b)) return b;
    }
    return NIL;
  }

  unlink(b: number): void {
    if (b !== VIRGIN) {
      this.unlinkBlock(b);
      return;
    }
    const p = this.getPrev(b);
    const n = this.getNext(b);
    if (p === NIL) this.head = n;
    else this.setNext(p, n);
    if (n === NIL) this.tail = p;
    else this.setPrev(n, p);
    this.setPrev(b, NIL);
    this.setNext(b, NIL);
  }

  /**
   * unlink() of a materialized block: its own links are array entries; only its neighbours may be
   * the untouched run.
   */
  private unlinkBlock(b: number): void {
    const prev = this.prev;
    const next = this.next;
    const p = prev[b]!;
    const n = next[b]!;
    if (p === NIL) this.head = n;
    else if (p === VIRGIN) this.vNext = n;
    else next[p] = n;
    if (n === NIL) this.tail = p;
    else if (n === VIRGIN) this.vPrev = p;
    else prev[n] = p;
    prev[b] = NIL;
    next[b] = NIL;
  }

  pushTail(b: number): void {
    this.setPrev(b, this.tail);
    this.setNext(b, NIL);
    if (this.tail === NIL) this.head = b;
    else this.setNext(this.tail, b);
    this.tail = b;
  }

  /** Appends ids[0, n) to the tail in that order: what n pushTail() calls do, linked in one pass. */
  pushTailRun(ids: Int32Array, n: number): void {
    if (n === 0) return;
    const prev = this.prev;
    const next = this.next;
    let last = ids[0]!;
    prev[last] = this.tail;
    if (this.tail === NIL) this.head = last;
    else this.setNext(this.tail, last);
    for (let i = 1; i < n; i++) {
      const b = ids[i]!;
      next[last] = b;
      prev[b] = last;
      last = b;
    }
    next[last] = NIL;
    this.tail = last;
  }

  pushHead(b: number): void {
    this.setNext(b, this.head);
    this.setPrev(b, NIL);
    if (this.head === NIL) this.tail = b;
    else this.setPrev(this.head, b);
    this.head = b;
  }

  private grow(minCap: number): void {
    let cap = this.prev.length;
    // ×4 while small: fewer regrowths of every per-block array (each instance of a large cluster
    // goes through them), at most 64 KB more per array when it stops there.
    while (cap < minCap) cap = Math.min(this.total, cap * (cap < 16384 ? 4 : 2));
    const p = new Int32Array(cap);
    const n = new Int32Array(cap);
    p.set(this.prev);
    n.set(this.next);
    this.prev = p;
    this.next = n;
    this.onGrow(cap);
  }

  /**
   * Block IDs in list order, untouched run expanded (tests and invariant checks only); a broken
   * link that closes a cycle shows as more IDs than there are blocks instead of a walk without end.
   */
  toArray(): number[] {
    const out: number[] = [];
    for (let b = this.head; b !== NIL && out.length <= this.total; b = this.getNext(b)) {
      if (b === VIRGIN) for (let v = this.highWater; v < this.total; v++) out.push(v);
      else out.push(b);
    }
    return out;
  }
}

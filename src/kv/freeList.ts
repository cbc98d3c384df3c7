// Doubly linked free list over block IDs, ordered from "evict first" (head) to "evict last" (tail).
//
// Two kinds of node stand for many blocks at once (docs/architecture.md "Private blocks"):
//  - the untouched run: blocks never used form one contiguous run in ID order (initially the whole
//    list), one sentinel node, so a cache of a million blocks costs nothing until blocks are used;
//    per-block arrays grow with the high-water mark;
//  - spent runs: the private blocks a request frees together, which hold nothing anyone can look
//    up, join the tail as one node, their IDs kept in order (kv/spentRuns.ts). Taking them back
//    copies IDs instead of following one link per block, and their per-block state is left as it
//    was (the store knows it: kv/kvStore.ts).

import { SpentRuns } from "./spentRuns.js";

export const NIL = -1;
/** Sentinel node standing for the run of untouched blocks [highWater, total). */
export const VIRGIN = -2;
/** Node ID of spent run r is SPENT_BASE - r. */
const SPENT_BASE = -3;

export class FreeList {
  prev: Int32Array;
  next: Int32Array;
  head: number;
  tail: number;
  private vPrev = NIL;
  private vNext = NIL;
  private readonly spent = new SpentRuns();
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

  /** Blocks held in spent runs, and a stamp that changes whenever they change. */
  get spentBlocks(): number {
    return this.spent.blocks;
  }
  get spentStamp(): number {
    return this.spent.stamp;
  }

  private getNext(b: number): number {
    if (b >= 0) return this.next[b]!;
    return b === VIRGIN ? this.vNext : this.spent.next[SPENT_BASE - b]!;
  }
  private getPrev(b: number): number {
    if (b >= 0) return this.prev[b]!;
    return b === VIRGIN ? this.vPrev : this.spent.prev[SPENT_BASE - b]!;
  }
  private setNext(b: number, v: number): void {
    if (b >= 0) this.next[b] = v;
    else if (b === VIRGIN) this.vNext = v;
    else this.spent.next[SPENT_BASE - b] = v;
  }
  private setPrev(b: number, v: number): void {
    if (b >= 0) this.prev[b] = v;
    else if (b === VIRGIN) this.vPrev = v;
    else this.spent.prev[SPENT_BASE - b] = v;
  }

  /** Removes and returns the head block ID, or NIL when the list is empty. */
  popHead(): number {
    const h = this.head;
    if (h === NIL) return NIL;
    if (h >= 0) {
      this.unlinkBlock(h);
      return h;
    }
    if (h === VIRGIN) {
      const b = this.highWater++;
      if (b >= this.prev.length) this.grow(b + 1);
      if (this.highWater === this.total) this.unlink(VIRGIN);
      return b;
    }
    const r = SPENT_BASE - h;
    const b = this.spent.takeOne(r);
    if (this.spent.isEmpty(r)) this.unlinkSpent(h);
    return b;
  }

  /**
   * Removes the first n blocks (n at most the list's length) into out[at, at + n) in list order:
   * what n popHead() calls return, without relinking each block (a taken block's links are never
   * read), with the untouched run taken in one piece and spent runs copied. With `fresh`, the
   * positions in out of the blocks that did not come from a spent run go to fresh[0, result).
   */
  popHeadRunInto(out: Int32Array, at: number, n: number, fresh: Int32Array | null = null): number {
    const end = at + n;
    let next = this.next;
    let i = at;
    let h = this.head;
    let nFresh = 0;
    while (i < end) {
      if (h >= 0) {
        if (fresh !== null) fresh[nFresh++] = i;
        out[i++] = h;
        h = next[h]!;
        continue;
      }
      if (h === VIRGIN) {
        const from = i;
        i = this.takeUntouched(out, i, end);
        if (fresh !== null) for (let j = from; j < i; j++) fresh[nFresh++] = j;
        next = this.next; // grown with the untouched blocks taken
        if (this.highWater < this.total) break;
        // The untouched run is used up: its node leaves the list.
        h = this.vNext;
        this.vPrev = NIL;
        this.vNext = NIL;
        continue;
      }
      const r = SPENT_BASE - h;
      i += this.spent.take(r, out, i, end - i);
      if (!this.spent.isEmpty(r)) break;
      h = this.spent.next[r]!;
      this.spent.drop(r);
    }
    this.head = h;
    if (h === NIL) this.tail = NIL;
    else this.setPrev(h, NIL);
    return nFresh;
  }

  /** Takes untouched blocks into out[i, end) while there are any; returns where it stopped. */
  private takeUntouched(out: Int32Array, i: number, end: number): number {
    const m = Math.min(end - i, this.total - this.highWater);
    if (this.highWater + m > this.prev.length) this.grow(this.highWater + m);
    for (let j = 0; j < m; j++) out[i++] = this.highWater++;
    return i;
  }

  /**
   * First materialized block from the head satisfying `pred`, skipping the untouched run. Only for
   * a list without spent runs (a store that keeps private blocks in its index makes none).
   */
  findFromHead(pred: (b: number) => boolean): number {
    for (let b = this.head; b !== NIL; b = this.getNext(b)) {
      if (b < VIRGIN) throw new Error("free list: findFromHead over a spent run");
      if (b !== VIRGIN && pred(b)) return b;
    }
    return NIL;
  }

  unlink(b: number): void {
    if (b >= 0) {
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

  /** Unlinks spent run node h, now empty, and drops its record. */
  private unlinkSpent(h: number): void {
    this.unlink(h);
    this.spent.drop(SPENT_BASE - h);
  }

  /**
   * unlink() of a materialized block: its own links are array entries; only its neighbours may be
   * run nodes.
   */
  private unlinkBlock(b: number): void {
    const prev = this.prev;
    const next = this.next;
    const p = prev[b]!;
    const n = next[b]!;
    if (p === NIL) this.head = n;
    else if (p >= 0) next[p] = n;
    else this.setNext(p, n);
    if (n === NIL) this.tail = p;
    else if (n >= 0) prev[n] = p;
    else this.setPrev(n, p);
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

  /**
   * Appends ids[hi - 1], ids[hi - 2], …, ids[lo] (hi > lo) to the tail as one spent run (the IDs
   * are copied). Their per-block links are not touched.
   */
  pushTailSpent(ids: Int32Array, lo: number, hi: number): void {
    this.pushTail(SPENT_BASE - this.spent.add(ids, lo, hi));
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
   * Block IDs in list order, runs expanded (tests and invariant checks only); a broken link that
   * closes a cycle shows as more IDs than there are blocks instead of a walk without end.
   */
  toArray(): number[] {
    const out: number[] = [];
    for (let b = this.head; b !== NIL && out.length <= this.total; b = this.getNext(b)) {
      if (b === VIRGIN) for (let v = this.highWater; v < this.total; v++) out.push(v);
      else if (b < VIRGIN) out.push(...this.spent.members(SPENT_BASE - b));
      else out.push(b);
    }
    return out;
  }

  /** IDs of the blocks in spent runs (tests and invariant checks only). */
  spentMembers(): Set<number> {
    return this.spent.allMembers();
  }
}

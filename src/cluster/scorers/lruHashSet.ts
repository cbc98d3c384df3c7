import { HashIndex } from "../../kv/hashIndex.js";

/**
 * Fixed-capacity set of block hashes with least-recently-touched eviction: a hash index to slot
 * numbers plus an intrusive doubly linked list of slots in touch order (head = oldest).
 * Every operation is O(1) and allocation-free once the arrays are sized.
 */
export class LruHashSet {
  private readonly index = new HashIndex(64);
  private hash: Float64Array;
  private prev: Int32Array;
  private next: Int32Array;
  private head = -1;
  private tail = -1;
  /** touch(h) passes h on through here. */
  private readonly scratch = new Float64Array(1);
  size = 0;

  constructor(readonly capacity: number) {
    const initial = Math.min(capacity, 256);
    this.hash = new Float64Array(initial);
    this.prev = new Int32Array(initial);
    this.next = new Int32Array(initial);
  }

  has(h: number): boolean {
    return this.index.get(h) >= 0;
  }

  /** has(keys[i]); the key is read here, since a double passed to a call is boxed. */
  hasAt(keys: Float64Array, i: number): boolean {
    return this.index.getAt(keys, i) >= 0;
  }

  /** Marks h as most recently used, inserting it (and evicting the oldest when full). */
  touch(h: number): void {
    this.scratch[0] = h;
    this.touchAt(this.scratch, 0);
  }

  /** touch(keys[i]). */
  touchAt(keys: Float64Array, i: number): void {
    let slot = this.index.getAt(keys, i);
    if (slot >= 0) {
      if (slot !== this.tail) {
        this.unlink(slot);
        this.append(slot);
      }
      return;
    }
    if (this.size >= this.capacity) {
      slot = this.head;
      this.unlink(slot);
      this.index.deleteAt(this.hash, slot);
    } else {
      slot = this.size++;
      if (slot >= this.hash.length) this.grow();
    }
    this.hash[slot] = keys[i]!;
    this.index.setAt(this.hash, slot, slot);
    this.append(slot);
  }

  private unlink(s: number): void {
    const p = this.prev[s]!;
    const n = this.next[s]!;
    if (p < 0) this.head = n;
    else this.next[p] = n;
    if (n < 0) this.tail = p;
    else this.prev[n] = p;
  }

  private append(s: number): void {
    this.prev[s] = this.tail;
    this.next[s] = -1;
    if (this.tail < 0) this.head = s;
    else this.next[this.tail] = s;
    this.tail = s;
  }

  private grow(): void {
    const cap = Math.min(this.capacity, this.hash.length * 2);
    const h = new Float64Array(cap);
    h.set(this.hash);
    this.hash = h;
    const p = new Int32Array(cap);
    p.set(this.prev);
    this.prev = p;
    const n = new Int32Array(cap);
    n.set(this.next);
    this.next = n;
  }
}

// Counts by number, in the order the numbers first came: what a Map<number, number> of counts
// holds, in typed arrays. The pooled inter-token gaps of an instance (pooledItl.ts) add a count for
// every run of steps with equal gaps, millions in a long run; a Map finds each key through its
// hash chains, here it is one probe of an open-addressing table of entry numbers.

import { grownFloat64 } from "../core/typedArrays.js";

const EMPTY_SLOT = 0;
const NO_NUMBERS = new Float64Array(0);
const NO_SLOTS = new Int32Array(0);
/** The two 32-bit halves of a number (its hash when it is not a 31-bit integer). */
const bits = new Float64Array(1);
const halves = new Int32Array(bits.buffer);

export class OrderedCounts {
  /**
   * Entry i: keys[i] and counts[i], i in order of first add. Empty until the first add: an
   * instance of a large cluster may never fold its gaps.
   */
  private keys = NO_NUMBERS;
  private counts = NO_NUMBERS;
  size = 0;
  /** Per slot: 1 + the number of the entry whose key hashes there, EMPTY_SLOT when free. */
  private slots = NO_SLOTS;

  /** The i-th key (i < size), in order of first add. */
  keyAt(i: number): number {
    return this.keys[i]!;
  }

  /** The count of the i-th key. */
  countAt(i: number): number {
    return this.counts[i]!;
  }

  /**
   * Adds c to the count of `key` (a new key comes last). Keys compare as a Map's do: -0 is 0, NaN is
   * NaN.
   */
  add(key: number, c: number): void {
    const k = key === 0 ? 0 : key !== key ? NaN : key;
    if (this.slots.length === 0) {
      this.keys = new Float64Array(16);
      this.counts = new Float64Array(16);
      this.slots = new Int32Array(32);
    }
    const mask = this.slots.length - 1;
    let s = hashOf(k) & mask;
    for (;;) {
      const e = this.slots[s]!;
      if (e === EMPTY_SLOT) break;
      const other = this.keys[e - 1]!;
      if (other === k || (other !== other && k !== k)) {
        this.counts[e - 1]! += c;
        return;
      }
      s = (s + 1) & mask;
    }
    this.append(k, c, s);
  }

  /** Adds the counts to `into`, in this order (new keys join `into` in it). */
  addTo(into: Map<number, number>): void {
    for (let i = 0; i < this.size; i++) {
      const k = this.keys[i]!;
      into.set(k, (into.get(k) ?? 0) + this.counts[i]!);
    }
  }

  /** New entry for key k in free slot s. */
  private append(k: number, c: number, s: number): void {
    if (this.size === this.keys.length) {
      this.keys = grownFloat64(this.keys, this.size * 2);
      this.counts = grownFloat64(this.counts, this.size * 2);
    }
    const i = this.size++;
    this.keys[i] = k;
    this.counts[i] = c;
    this.slots[s] = i + 1;
    if (this.size * 2 > this.slots.length) this.rehash();
  }

  /** A table twice as large (at most half full), refilled from the entries. */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let i = 0; i < this.size; i++) {
      let s = hashOf(this.keys[i]!) & mask;
      while (slots[s] !== EMPTY_SLOT) s = (s + 1) & mask;
      slots[s] = i + 1;
    }
    this.slots = slots;
  }
}

/** A well-mixed 32-bit hash of k (the gaps are mostly integers, often close together). */
function hashOf(k: number): number {
  let h: number;
  if ((k | 0) === k) h = k;
  else {
    bits[0] = k;
    h = halves[0]! ^ Math.imul(halves[1]!, 0x9e3779b1);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

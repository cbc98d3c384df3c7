// Open-addressing hash map from block hash (an integer of magnitude below 2^53, stored in a double)
// to block ID. Linear probing with backward-shift deletion: no tombstones, no per-entry allocation.
// Block hashes are already well mixed, so their low bits index the table directly. A slot is three
// int32s side by side (the key's low 32 bits, its high bits, the block ID): 12 bytes instead of two
// doubles' 16, which matters because a cache of a million blocks makes the table far larger than
// the CPU caches, and every lookup is then a memory access (about a fifth less time per operation).

/**
 * A slot keeps its key's high word XOR HIGH_MARK, never 0 since real keys' high words lie within
 * ±2^21: a zero high word marks a free slot, so a new table needs no filling.
 */
const EMPTY = 0;
const HIGH_MARK = 0x40000000;
const TWO_32 = 4294967296;
/** Keys whose home slots findRunAt reads ahead. */
const LOOKAHEAD = 8;

export class HashIndex {
  /** slots[3i] = key low word, slots[3i + 1] = marked key high word (EMPTY when free), slots[3i + 2] = block ID. */
  private slots: Int32Array;
  private mask: number;
  size = 0;
  /** findRunAt's copies of the home slots of the keys it looks up next. */
  private readonly home = new Int32Array(3 * LOOKAHEAD);

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity * 2) cap *= 2;
    this.slots = emptySlots(cap);
    this.mask = cap - 1;
  }

  // The *At variants take the key as keys[i]: a double passed to a call that is not inlined is
  // boxed into a fresh heap number, and the KV hot path makes several such calls per block.

  /** Block ID for hash keys[i], or -1. */
  getAt(keys: Float64Array, i: number): number {
    const h = keys[i]!;
    return this.find(h | 0, highWord(h));
  }

  /** set(keys[i], v). */
  setAt(keys: Float64Array, i: number, v: number): void {
    const h = keys[i]!;
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    this.put(h | 0, highWord(h), v);
  }

  /** delete(keys[i]). */
  deleteAt(keys: Float64Array, i: number): void {
    const h = keys[i]!;
    this.remove(h | 0, highWord(h));
  }

  /**
   * Looks keys[from], keys[from + 1], … up while they are found, at most up to `to`: their block
   * IDs go to out[from ..], and the result is the index of the first key not found (or `to`).
   * The keys' home slots are read a batch at a time before any is compared: random reads in a
   * table larger than the CPU caches, each a cache miss, which the processor can then wait for
   * side by side rather than one after another (a prompt's hashes are looked up in a row).
   */
  findRunAt(keys: Float64Array, from: number, to: number, out: Int32Array): number {
    const slots = this.slots;
    const mask = this.mask;
    const home = this.home;
    let n = from;
    while (n < to) {
      const m = to - n < LOOKAHEAD ? to - n : LOOKAHEAD;
      for (let i = 0; i < m; i++) {
        const j = ((keys[n + i]! | 0) & mask) * 3;
        home[3 * i] = slots[j]!;
        home[3 * i + 1] = slots[j + 1]!;
        home[3 * i + 2] = slots[j + 2]!;
      }
      for (let i = 0; i < m; i++) {
        const h = keys[n + i]!;
        const lo = h | 0;
        const hi = highWord(h);
        const v = home[3 * i + 1] === hi && home[3 * i] === lo ? home[3 * i + 2]! : this.find(lo, hi);
        if (v < 0) return n + i;
        out[n + i] = v;
      }
      n += m;
    }
    return n;
  }

  /** Block ID for hash h, or -1. */
  get(h: number): number {
    return this.find(h | 0, highWord(h));
  }

  private find(lo: number, hi: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = lo & mask;
    for (;;) {
      const j = i * 3;
      const k = slots[j + 1]!;
      if (k === hi && slots[j] === lo) return slots[j + 2]!;
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  has(h: number): boolean {
    return this.get(h) !== -1;
  }

  set(h: number, v: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    this.put(h | 0, highWord(h), v);
  }

  private put(lo: number, hi: number, v: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = lo & mask;
    for (;;) {
      const j = i * 3;
      const k = slots[j + 1]!;
      if (k === EMPTY) {
        slots[j] = lo;
        slots[j + 1] = hi;
        slots[j + 2] = v;
        this.size++;
        return;
      }
      if (k === hi && slots[j] === lo) {
        slots[j + 2] = v;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  delete(h: number): void {
    this.remove(h | 0, highWord(h));
  }

  private remove(lo: number, hi: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = lo & mask;
    for (;;) {
      const k = slots[i * 3 + 1]!;
      if (k === EMPTY) return;
      if (k === hi && slots[i * 3] === lo) break;
      i = (i + 1) & mask;
    }
    // Backward-shift: move later entries of the probe run into the hole.
    let hole = i;
    let j = (i + 1) & mask;
    for (;;) {
      const s = j * 3;
      if (slots[s + 1] === EMPTY) break;
      const home = slots[s]! & mask;
      // Entry at j may fill the hole if its home is not in (hole, j] cyclically.
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!between) {
        const d = hole * 3;
        slots[d] = slots[s]!;
        slots[d + 1] = slots[s + 1]!;
        slots[d + 2] = slots[s + 2]!;
        hole = j;
      }
      j = (j + 1) & mask;
    }
    slots[hole * 3 + 1] = EMPTY;
    this.size--;
  }

  /** Makes this index an exact copy of `src` (reusing its own table when the sizes agree). */
  copyFrom(src: HashIndex): void {
    if (this.slots.length === src.slots.length) this.slots.set(src.slots);
    else this.slots = src.slots.slice();
    this.mask = src.mask;
    this.size = src.size;
  }

  private grow(): void {
    const old = this.slots;
    // ×4 while small (fewer rebuilds in the many small caches of a large cluster), then ×2: every
    // operation on a large table is a random access, so the table is kept as small as its load
    // allows (at most half full), for more of it to stay in the CPU caches.
    const cap = (this.mask + 1) * (this.mask < 4096 ? 4 : 2);
    this.slots = emptySlots(cap);
    this.mask = cap - 1;
    this.size = 0;
    for (let j = 0; j < old.length; j += 3) {
      const hi = old[j + 1]!;
      if (hi !== EMPTY) this.put(old[j]!, hi, old[j + 2]!);
    }
  }
}

function emptySlots(cap: number): Int32Array {
  return new Int32Array(cap * 3);
}

/** The marked high word of key h. */
function highWord(h: number): number {
  return Math.floor(h / TWO_32) ^ HIGH_MARK;
}

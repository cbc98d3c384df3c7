// Open-addressing hash map from block hash (a non-negative 53-bit integer stored in a double) to
// block ID. Linear probing with backward-shift deletion: no tombstones, no per-entry allocation.
// Block hashes are already well mixed, so their low bits index the table directly. Each slot keeps
// its key and value side by side (one Float64Array), so a probe touches one cache line.

const EMPTY = -1;

export class HashIndex {
  /** slots[2i] = key (EMPTY when free), slots[2i + 1] = block ID. */
  private slots: Float64Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity * 2) cap *= 2;
    this.slots = new Float64Array(cap * 2).fill(EMPTY);
    this.mask = cap - 1;
  }

  /** Block ID for hash h, or -1. */
  get(h: number): number {
    const slots = this.slots;
    const mask = this.mask;
    let i = (h | 0) & mask;
    for (;;) {
      const k = slots[i << 1]!;
      if (k === h) return slots[(i << 1) + 1]!;
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  has(h: number): boolean {
    return this.get(h) !== -1;
  }

  set(h: number, v: number): void {
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    const slots = this.slots;
    const mask = this.mask;
    let i = (h | 0) & mask;
    for (;;) {
      const k = slots[i << 1]!;
      if (k === h) {
        slots[(i << 1) + 1] = v;
        return;
      }
      if (k === EMPTY) {
        slots[i << 1] = h;
        slots[(i << 1) + 1] = v;
        this.size++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  delete(h: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = (h | 0) & mask;
    for (;;) {
      const k = slots[i << 1]!;
      if (k === EMPTY) return;
      if (k === h) break;
      i = (i + 1) & mask;
    }
    // Backward-shift: move later entries of the probe run into the hole.
    let hole = i;
    let j = (i + 1) & mask;
    for (;;) {
      const k = slots[j << 1]!;
      if (k === EMPTY) break;
      const home = (k | 0) & mask;
      // Entry at j may fill the hole if its home is not in (hole, j] cyclically.
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!between) {
        slots[hole << 1] = k;
        slots[(hole << 1) + 1] = slots[(j << 1) + 1]!;
        hole = j;
      }
      j = (j + 1) & mask;
    }
    slots[hole << 1] = EMPTY;
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
    const cap = (this.mask + 1) * 2;
    this.slots = new Float64Array(cap * 2).fill(EMPTY);
    this.mask = cap - 1;
    this.size = 0;
    for (let i = 0; i < old.length; i += 2) {
      const k = old[i]!;
      if (k !== EMPTY) this.set(k, old[i + 1]!);
    }
  }
}

// Open-addressing hash map from block hash (a non-negative 53-bit integer stored in a double) to
// block ID. Linear probing with backward-shift deletion: no tombstones, no per-entry allocation.
// Block hashes are already well mixed, so their low bits index the table directly.

const EMPTY = -1;

export class HashIndex {
  private keys: Float64Array;
  private vals: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1024) {
    let cap = 16;
    while (cap < capacity * 2) cap *= 2;
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
  }

  /** Block ID for hash h, or -1. */
  get(h: number): number {
    const keys = this.keys;
    const mask = this.mask;
    let i = (h | 0) & mask;
    for (;;) {
      const k = keys[i]!;
      if (k === h) return this.vals[i]!;
      if (k === EMPTY) return -1;
      i = (i + 1) & mask;
    }
  }

  has(h: number): boolean {
    return this.get(h) !== -1;
  }

  set(h: number, v: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const mask = this.mask;
    let i = (h | 0) & mask;
    for (;;) {
      const k = keys[i]!;
      if (k === h) {
        this.vals[i] = v;
        return;
      }
      if (k === EMPTY) {
        keys[i] = h;
        this.vals[i] = v;
        this.size++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  delete(h: number): void {
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    let i = (h | 0) & mask;
    for (;;) {
      const k = keys[i]!;
      if (k === EMPTY) return;
      if (k === h) break;
      i = (i + 1) & mask;
    }
    // Backward-shift: move later entries of the probe run into the hole.
    let hole = i;
    let j = (i + 1) & mask;
    for (;;) {
      const k = keys[j]!;
      if (k === EMPTY) break;
      const home = (k | 0) & mask;
      // Entry at j may fill the hole if its home is not in (hole, j] cyclically.
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!between) {
        keys[hole] = k;
        vals[hole] = vals[j]!;
        hole = j;
      }
      j = (j + 1) & mask;
    }
    keys[hole] = EMPTY;
    this.size--;
  }

  private grow(): void {
    const oldK = this.keys;
    const oldV = this.vals;
    const cap = oldK.length * 2;
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.vals = new Int32Array(cap);
    this.mask = cap - 1;
    this.size = 0;
    for (let i = 0; i < oldK.length; i++) {
      const k = oldK[i]!;
      if (k !== EMPTY) this.set(k, oldV[i]!);
    }
  }
}

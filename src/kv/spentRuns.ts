// The spent runs of a free list (kv/freeList.ts): the private blocks a request frees together, one
// list node per run. Their IDs are kept in one ring, in the order they join the free list: runs
// only ever join at the tail and leave from the head, so the oldest run still there is always the
// one being taken, and the ring is read where it was written first. Nothing is allocated per run,
// and the members of all runs are exactly ring[readAt .. writeAt).

export class SpentRuns {
  /** Member IDs; the members of run r are ring[start[r] .. end[r]) (positions counted mod size). */
  private ring = new Int32Array(64);
  /** Where the next run's members are written, and where the oldest run's next member is. */
  private writeAt = 0;
  private readAt = 0;
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  /** List links of each run's node, set by the free list when it links the node (kv/freeList.ts). */
  readonly prev: number[] = [];
  readonly next: number[] = [];
  private readonly unused: number[] = [];

  /** Blocks in all spent runs. */
  get blocks(): number {
    return this.writeAt - this.readAt;
  }

  /** Changes whenever a run is added or taken from: both ends only move forward. */
  get stamp(): number {
    return this.writeAt + this.readAt;
  }

  /** A new run of ids[hi - 1], ids[hi - 2], …, ids[lo] (the order they are freed); its number. */
  add(ids: Int32Array, lo: number, hi: number): number {
    const n = hi - lo;
    if (this.writeAt - this.readAt + n > this.ring.length) this.grow(this.writeAt - this.readAt + n);
    const ring = this.ring;
    const mask = ring.length - 1;
    const from = this.writeAt;
    for (let i = hi - 1, w = from; i >= lo; i--, w++) ring[w & mask] = ids[i]!;
    this.writeAt = from + n;
    const r = this.unused.length > 0 ? this.unused.pop()! : this.start.length;
    this.start[r] = from;
    this.end[r] = from + n;
    return r;
  }

  /** Moves up to `max` of run r's members, next first, into out from `at`; returns how many. Run r is the oldest. */
  take(r: number, out: Int32Array, at: number, max: number): number {
    const ring = this.ring;
    const mask = ring.length - 1;
    const s = this.start[r]!;
    const left = this.end[r]! - s;
    const m = left < max ? left : max;
    for (let j = 0; j < m; j++) out[at + j] = ring[(s + j) & mask]!;
    this.start[r] = s + m;
    this.readAt = s + m;
    return m;
  }

  /** Run r's next member, taken (run r is the oldest and not empty). */
  takeOne(r: number): number {
    const s = this.start[r]!;
    this.start[r] = s + 1;
    this.readAt = s + 1;
    return this.ring[s & (this.ring.length - 1)]!;
  }

  isEmpty(r: number): boolean {
    return this.start[r] === this.end[r];
  }

  drop(r: number): void {
    this.unused.push(r);
  }

  /** Members of run r in list order (tests and invariant checks). */
  members(r: number): number[] {
    const out: number[] = [];
    const mask = this.ring.length - 1;
    for (let i = this.start[r]!; i < this.end[r]!; i++) out.push(this.ring[i & mask]!);
    return out;
  }

  /** The members of all runs (tests and invariant checks). */
  allMembers(): Set<number> {
    const out = new Set<number>();
    const mask = this.ring.length - 1;
    for (let i = this.readAt; i < this.writeAt; i++) out.add(this.ring[i & mask]!);
    return out;
  }

  /** A ring of at least `need` slots holding the same members at the same positions. */
  private grow(need: number): void {
    let cap = this.ring.length;
    while (cap < need) cap *= 2;
    const old = this.ring;
    const oldMask = old.length - 1;
    const ring = new Int32Array(cap);
    for (let i = this.readAt; i < this.writeAt; i++) ring[i & (cap - 1)] = old[i & oldMask]!;
    this.ring = ring;
  }
}

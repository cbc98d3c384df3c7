// The adapters resident on one instance (docs/lora.md "Resident set, cold loads and costs"): an LRU list of at most K
// IDs, each with a pin count; a pinned adapter is never evicted.

export class ResidentSet {
  /** Insertion order is recency order: the first key is the least recently used. */
  private readonly pins = new Map<string, number>();
  /** Bumped on every change of membership (routing snapshots copy the set only then). */
  version = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.pins.size;
  }

  has(id: string): boolean {
    return this.pins.has(id);
  }

  isFull(): boolean {
    return this.pins.size >= this.capacity;
  }

  /** Adds a new adapter as the most recent one; the caller has made room. */
  insert(id: string): void {
    if (this.pins.has(id)) return;
    if (this.pins.size >= this.capacity) throw new Error(`resident set full (${this.capacity}) inserting ${id}`);
    this.pins.set(id, 0);
    this.version++;
  }

  /** Moves a resident adapter to most recent. */
  touch(id: string): void {
    const n = this.pins.get(id);
    if (n === undefined) return;
    this.pins.delete(id);
    this.pins.set(id, n);
  }

  pin(id: string): void {
    const n = this.pins.get(id);
    if (n === undefined) throw new Error(`pinning adapter ${id}, which is not resident`);
    this.pins.set(id, n + 1);
  }

  unpin(id: string): void {
    const n = this.pins.get(id);
    if (n === undefined || n <= 0) throw new Error(`unpinning adapter ${id}, which is not pinned`);
    this.pins.set(id, n - 1);
  }

  pinCount(id: string): number {
    return this.pins.get(id) ?? 0;
  }

  /** Removes the least recent unpinned adapter and returns its ID; null when every one is pinned. */
  evictLru(): string | null {
    for (const [id, n] of this.pins) {
      if (n === 0) {
        this.pins.delete(id);
        this.version++;
        return id;
      }
    }
    return null;
  }

  /** IDs from least to most recent. */
  ids(): string[] {
    return [...this.pins.keys()];
  }

  /** Sum of the pin counts. */
  totalPins(): number {
    let s = 0;
    for (const n of this.pins.values()) s += n;
    return s;
  }
}

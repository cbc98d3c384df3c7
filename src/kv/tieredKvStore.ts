import { KvStore } from "./kvStore.js";
import { NIL } from "./freeList.js";
import { NO_HASH } from "./hash.js";
import type { Request } from "../core/request.js";
import type { CpuTierStats } from "./kvCache.js";

/** Reloads whose block was offloaded less than this many ticks earlier count as thrashing. */
export const THRASH_WINDOW = 1000;

/**
 * GPU tier (the single-tier store) plus a CPU tier keyed by GPU block ID (docs/behavior.md
 * "CPU offload tier"). Reproduces the reference's tier semantics, including its oddities
 * (docs/behavior.md#q15, #q16): offload drains every cached free block once utilization is above
 * the threshold, reloads only happen when a GPU allocation fails, and a reload occupies a free GPU
 * slot rather than adding space.
 */
export class TieredKvStore extends KvStore {
  private readonly cpuBits: Uint32Array;
  private readonly cpuHash: Float64Array;
  private readonly cpuTime: Float64Array;
  cpuUsed = 0;
  cpuHits = 0;
  cpuMisses = 0;
  offloadCount = 0;
  reloadCount = 0;
  thrashCount = 0;
  private pending = 0;
  private now = 0;
  private readonly reloadCost: number;
  private origPrefix = new Int32Array(64);

  constructor(
    totalBlocks: number,
    blockSize: number,
    readonly cpuCapacity: number,
    readonly offloadThreshold: number,
    bandwidth: number,
    baseLatency: number,
    private readonly onRangeOverrun: (req: Request) => void = () => {},
  ) {
    // Offloads and reloads move blocks by hash through the shared index: every block goes in it.
    super(totalBlocks, blockSize, false);
    this.cpuBits = new Uint32Array(Math.ceil(totalBlocks / 32));
    this.cpuHash = new Float64Array(totalBlocks);
    this.cpuTime = new Float64Array(totalBlocks);
    // Compat (docs/behavior.md#q15): the formula divides tokens (block size) by the bandwidth.
    this.reloadCost = baseLatency + Math.ceil(blockSize / bandwidth);
  }

  override setClock(now: number): void {
    this.now = now;
  }

  override pendingTransferLatency(): number {
    return this.pending;
  }

  override consumeTransferLatency(): number {
    const p = this.pending;
    this.pending = 0;
    return p;
  }

  override cacheHitRate(): number {
    const d = this.hits + this.cpuHits + this.misses + this.cpuMisses;
    return d === 0 ? 0 : (this.hits + this.cpuHits) / d;
  }

  override thrashingRate(): number {
    return this.offloadCount === 0 ? 0 : this.thrashCount / this.offloadCount;
  }

  override cpuUtilization(): number {
    return this.cpuUsed / this.cpuCapacity;
  }

  override cpuTierStats(): CpuTierStats {
    return { offloads: this.offloadCount, reloads: this.reloadCount, cpuHits: this.cpuHits, cpuMisses: this.cpuMisses };
  }

  /** Offload after every release (docs/behavior.md "CPU offload tier"). */
  protected override afterRelease(): void {
    const n = this.totalBlocks;
    while (this.used / n > this.offloadThreshold && this.cpuUsed < this.cpuCapacity) {
      const b = this.free.findFromHead((x) => this.content.hash[x] !== NO_HASH);
      if (b === NIL) break;
      const h = this.content.hash[b]!;
      // Compat (docs/behavior.md#q15): an existing entry under the same ID is overwritten but still
      // counted.
      this.cpuBits[b >>> 5]! |= 1 << (b & 31);
      this.cpuHash[b] = h;
      this.cpuTime[b] = this.now;
      this.cpuUsed++;
      this.offloadCount++;
      this.content.index.delete(h);
      this.content.hash[b] = NO_HASH;
      this.free.unlink(b);
      this.free.pushTail(b);
    }
  }

  override allocate(req: Request, start: number, end: number, nPrefix: number): boolean {
    if (this.allocateGpu(req, start, end, nPrefix)) return true;
    if (this.origPrefix.length < nPrefix) this.origPrefix = new Int32Array(nPrefix * 2);
    this.origPrefix.set(this.prefixScratch.subarray(0, nPrefix));
    const reloaded = this.reload();
    if (reloaded === 0) {
      this.cpuMisses++;
      return false;
    }
    const covered = this.cachedPrefix(req);
    const c = covered * this.blockSize;
    if (c > start) {
      if (c > end) {
        // The reference crashes here (slice bounds); treat it as an empty range and flag it.
        this.onRangeOverrun(req);
        return this.allocateGpu(req, end, end, covered);
      }
      return this.allocateGpu(req, c, end, covered);
    }
    // Retry with the original arguments: the original prefix block IDs are re-attached even if a
    // reload just overwrote their contents (Compat, docs/behavior.md#q15).
    this.prefixScratch.set(this.origPrefix.subarray(0, nPrefix));
    return this.allocateGpu(req, start, end, nPrefix);
  }

  /**
   * Moves CPU entries back into free GPU slots in ascending block-ID order (docs/behavior.md
   * "CPU offload tier").
   */
  private reload(): number {
    let count = 0;
    const bits = this.cpuBits;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w]!;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        word &= word - 1;
        const id = (w << 5) | bit;
        const h = this.cpuHash[id]!;
        if (this.content.index.has(h)) continue;
        const b = this.free.popHead();
        if (b === NIL) return count;
        this.content.evict(b);
        this.content.hash[b] = h;
        this.refCount[b] = 0;
        this.content.index.set(h, b);
        this.free.pushTail(b);
        this.pending += this.reloadCost;
        if (this.now - this.cpuTime[id]! < THRASH_WINDOW) this.thrashCount++;
        bits[w]! &= ~(1 << bit);
        this.cpuUsed--;
        this.cpuHits++;
        this.reloadCount++;
        count++;
      }
    }
    return count;
  }
}

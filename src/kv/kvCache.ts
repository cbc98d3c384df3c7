import type { Request } from "../core/request.js";
import type { HashIndex } from "./hashIndex.js";

/** Counters of the CPU offload tier (docs/behavior.md "CPU offload tier"). */
export interface CpuTierStats {
  offloads: number;
  reloads: number;
  cpuHits: number;
  cpuMisses: number;
}

/**
 * What an instance, the router snapshots and the metrics see of a KV cache: the single-tier
 * `KvStore` or the GPU+CPU `TieredKvStore` (docs/behavior.md "KV cache", "CPU offload tier").
 * A store without a CPU tier answers the tier questions with 0 and null, which is what the metrics
 * print for it.
 */
export interface KvCache {
  /** GPU blocks. */
  readonly totalBlocks: number;
  readonly blockSize: number;
  /** GPU blocks held by at least one request. */
  readonly used: number;
  /** GPU-tier cached blocks attached at first allocations (docs/behavior.md "Cache metrics"). */
  readonly hits: number;
  /** Fresh GPU blocks taken. */
  readonly misses: number;

  freeBlocks(): number;
  utilization(): number;
  /** Cumulative block-level hit rate, CPU hits included when there is a CPU tier. */
  cacheHitRate(): number;
  thrashingRate(): number;
  /** Occupied fraction of the CPU tier; 0 without one. */
  cpuUtilization(): number;
  /** The CPU tier's counters, or null without one. */
  cpuTierStats(): CpuTierStats | null;

  /** Tells the store the step time (stamps of CPU offloads). */
  setClock(now: number): void;
  /** Reload latency not yet charged to a step, left in place. */
  pendingTransferLatency(): number;
  /** Reload latency not yet charged to a step, reset to 0. */
  consumeTransferLatency(): number;

  /**
   * Longest run of cached blocks matching the request's prompt, remembered for the next
   * allocate() (docs/behavior.md "Prefix lookup, allocation and rollback").
   */
  cachedPrefix(req: Request): number;
  /**
   * KV for sequence positions [start, end) of `req`, attaching the first `nPrefix` blocks of the
   * last cachedPrefix() on the request's first allocation. Returns false on failure, with the
   * call's work rolled back (docs/behavior.md "Prefix lookup, allocation and rollback").
   */
  allocate(req: Request, start: number, end: number, nPrefix: number): boolean;
  /** One decode token into the request's partially filled last block; never fails. */
  appendDecodeToken(req: Request, pos: number): void;
  /**
   * Whether the tokens that fill the request's partially filled last block may be placed without
   * the store, and the block filled later by fillLastBlock(): its content is private (only its
   * owner ever asks for it, docs/architecture.md "Private blocks"), so when it is hashed changes
   * nothing anyone else sees.
   */
  mayFillLater(req: Request): boolean;
  /**
   * The request's last block was filled by tokens placed without the store (the decode cohort,
   * instance/decodeCohort.ts) after mayFillLater() said so: what appendDecodeToken() does for the
   * token that fills it. req.pi is the position after that token.
   */
  fillLastBlock(req: Request): void;
  /**
   * Takes n free blocks for the current step's speculative slots (docs/speculative.md "KV"): they
   * count as used and lose their cached content until releaseScratch(). False, with nothing taken,
   * when fewer than n are free.
   */
  reserveScratch(n: number): boolean;
  /** Returns every scratch block to the head of the free list (they hold no content). */
  releaseScratch(): void;
  /** Blocks reserved by reserveScratch() and not yet released. */
  readonly scratchBlocks: number;
  /** Frees the request's blocks; freed blocks keep their content. */
  release(req: Request): void;
  /** release() for a request preempted here: it will look its prompt up here again. */
  releaseToRetry(req: Request): void;

  /** GPU-tier block hash → block ID; read by the router's cache signals, never written outside. */
  readonly prefixIndex: HashIndex;

  // Introspection for invariant checks and tests.
  refCountOf(block: number): number;
  isInUse(block: number): boolean;
  freeListIds(): number[];
  indexSize(): number;
}

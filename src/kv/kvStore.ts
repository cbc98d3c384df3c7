import { BlockContent } from "./blockContent.js";
import { FreeList, NIL } from "./freeList.js";
import type { HashIndex } from "./hashIndex.js";
import { NO_HASH } from "./hash.js";
import { PRIVATE_HASH } from "./privateEntries.js";
import { AllocationUndoLog } from "./undoLog.js";
import { seqHashesInto } from "./seqHash.js";
import type { Request } from "../core/request.js";
import type { CpuTierStats, KvCache } from "./kvCache.js";
import { grownInt32 } from "../core/typedArrays.js";

/**
 * Paged KV cache with prefix caching, single tier (docs/behavior.md "KV cache").
 *
 * Differs from BLIS in one deliberate way: a failed allocation rolls back only what that call created and keeps the
 * request's
 * earlier block list, so the request can be preempted and its blocks freed (BLIS deletes the list and leaks every block
 * on it,
 * docs/behavior.md#q8).
 */
export class KvStore implements KvCache {
  readonly totalBlocks: number;
  readonly blockSize: number;
  protected refCount: Int32Array;
  protected readonly free: FreeList;
  /** Each block's content and the prefix index. */
  protected readonly content: BlockContent;
  used = 0;
  hits = 0;
  misses = 0;
  /** Longest cached prefix found by the last cachedPrefix() call, as block IDs. */
  prefixScratch: Int32Array = new Int32Array(16);

  private readonly undo = new AllocationUndoLog();
  private readonly runs: boolean;
  /** Blocks taken for the current step's speculative slots (reserveScratch). */
  private scratch = new Int32Array(8);
  scratchBlocks = 0;
  /** The blocks a release frees, in the order they join the free list (dropBlocks). */
  private freed = new Int32Array(64);
  /** Positions in a request's list of the blocks a private run took from outside spent runs. */
  private fresh = new Int32Array(64);
  /** Members of the free list's spent runs, as of its spentStamp (introspection only). */
  private spentCache: { stamp: number; members: Set<number> } | null = null;

  /**
   * `privateBlocks`: keep blocks of private content (TokenSeq.privateFrom) off the shared index (kv/privateEntries.ts);
   * the
   * lookups' answers are the same either way. `runs`: take a prefill's full blocks as runs (takePrivateRun,
   * takeSharedRun) rather than one by one; the outcome is the same either way.
   */
  constructor(totalBlocks: number, blockSize: number, privateBlocks = true, runs = true) {
    this.runs = runs;
    this.totalBlocks = totalBlocks;
    this.blockSize = blockSize;
    // Small to start: per-block arrays grow with use, and idle instances of a large cluster stay cheap.
    const cap = Math.min(totalBlocks, 64);
    this.free = new FreeList(totalBlocks, cap);
    this.refCount = new Int32Array(cap);
    this.content = new BlockContent(cap, blockSize, privateBlocks);
    this.free.onGrow = (c) => this.growArrays(c);
  }

  private growArrays(cap: number): void {
    this.refCount = grownInt32(this.refCount, cap);
    this.content.grow(cap);
  }

  freeBlocks(): number {
    return this.totalBlocks - this.used;
  }

  utilization(): number {
    return this.used / this.totalBlocks;
  }

  /** Block-level cumulative hit rate (docs/behavior.md "Cache metrics"). */
  cacheHitRate(): number {
    const d = this.hits + this.misses;
    return d === 0 ? 0 : this.hits / d;
  }

  thrashingRate(): number {
    return 0;
  }

  cpuUtilization(): number {
    return 0;
  }

  cpuTierStats(): CpuTierStats | null {
    return null;
  }

  /** Tells the store the step time (used by the tiered store for offload stamps). */
  setClock(_now: number): void {}

  /** Non-destructive read of reload latency not yet charged to a step. */
  pendingTransferLatency(): number {
    return 0;
  }

  /** Consuming read of the pending reload latency. */
  consumeTransferLatency(): number {
    return 0;
  }

  /** Chain hashes of the request's complete prompt blocks. */
  promptHashes(req: Request): Float64Array {
    const out = new Float64Array(Math.floor(req.inputLen / this.blockSize));
    seqHashesInto(req.tokens!, out.length * this.blockSize, this.blockSize, out);
    return out;
  }

  /**
   * Longest run of cached blocks matching the request's whole prompt (docs/behavior.md "Prefix lookup, allocation and
   * rollback").
   * Block IDs are left in prefixScratch[0 .. result).
   */
  cachedPrefix(req: Request): number {
    const k = Math.floor(req.inputLen / this.blockSize);
    if (this.prefixScratch.length < k) this.prefixScratch = new Int32Array(k * 2);
    return this.content.cachedPrefix(req, this.prefixScratch);
  }

  /**
   * Allocates KV for sequence positions [start, end) of `req`, attaching the first `nPrefix` blocks of prefixScratch on
   * the
   * request's first allocation (docs/behavior.md "Prefix lookup, allocation and rollback"). Returns false on failure,
   * with every
   * change made by this call undone.
   */
  allocate(req: Request, start: number, end: number, nPrefix: number): boolean {
    return this.allocateGpu(req, start, end, nPrefix);
  }

  /**
   * Fast path of a decode allocation: one token at sequence position `pos` into the request's
   * partially filled last block (caller checks nBlocks > 0 and tailFill < blockSize). Never fails.
   * A block's hash is computed once, when its last token arrives, from the tokens it holds.
   */
  appendDecodeToken(req: Request, pos: number): void {
    if (++req.tailFill === this.blockSize)
      this.content.hashFullBlock(req, pos + 1 - this.blockSize, req.blocks[req.nBlocks - 1]!);
  }

  mayFillLater(req: Request): boolean {
    const p = this.content.priv;
    return p !== null && req.nBlocks > 0 && req.nBlocks - 1 >= p.firstPrivate(req);
  }

  fillLastBlock(req: Request): void {
    this.content.hashFullBlock(req, req.pi - this.blockSize, req.blocks[req.nBlocks - 1]!);
  }

  /** The GPU-tier allocation behind allocate(); the tiered store retries it after reloads. */
  protected allocateGpu(req: Request, start: number, end: number, nPrefix: number): boolean {
    const bs = this.blockSize;
    if (req.pi >= req.inputLen) {
      // A decode places one token, in the last block while it has room.
      if (req.nBlocks > 0 && req.tailFill < bs) {
        this.appendDecodeToken(req, start);
        return true;
      }
      return this.place(req, start, 1, nPrefix, false);
    }
    const count = end - start;
    // BLIS checks ceil(count / bs) fresh blocks, ignoring room left in the request's last
    // block. With preemption on failure that livelocks a running request whose next chunk fits
    // in its own tail while no block is free: it evicts itself, is readmitted with its cached
    // prefix, and fails the same check forever. Count only the blocks needed
    // (docs/behavior.md#q23).
    const room = req.nBlocks > 0 && req.tailFill < bs ? bs - req.tailFill : 0;
    const need = count > room ? Math.ceil((count - room) / bs) : 0;
    if (need > this.totalBlocks - this.used) return false;
    return this.place(req, start, count, nPrefix, true);
  }

  /**
   * Places `count` tokens from sequence position `pos`: first the cached prefix (on the request's
   * first allocation) or the room left in its last block, then fresh blocks. On failure undoes
   * what it did and restores the request's chain state.
   */
  private place(req: Request, pos: number, count: number, nPrefix: number, prefill: boolean): boolean {
    // An empty range attaches no cached prefix either (docs/behavior.md#q10).
    if (count <= 0) return true;
    const startBlocks = req.nBlocks;
    const startChain = req.chainPrev;
    const startTailFill = req.tailFill;
    this.undo.clear();
    let placed = 0;
    if (req.nBlocks === 0) this.attachPrefix(req, nPrefix, this.mayFail(count, nPrefix));
    else if (req.tailFill < this.blockSize) placed = this.fillTail(req, pos, count);
    if (placed === count || this.appendFresh(req, pos + placed, count - placed, prefill)) return true;
    this.rollback(req, startBlocks);
    req.chainPrev = startChain;
    req.tailFill = startTailFill;
    return false;
  }

  /**
   * Whether the first allocation of a request, `count` tokens after an attached prefix of `nPrefix`
   * blocks, may run out of free blocks: not when every attached block and every fresh one could
   * come off the free list.
   */
  private mayFail(count: number, nPrefix: number): boolean {
    return nPrefix + Math.ceil(count / this.blockSize) > this.totalBlocks - this.used;
  }

  /**
   * Attaches prefixScratch[0 .. nPrefix) to a request holding no blocks: one hit each. With
   * `undoable`, records each attach for a rollback (an allocation that cannot fail needs none).
   */
  private attachPrefix(req: Request, nPrefix: number, undoable: boolean): void {
    const prefix = this.prefixScratch;
    const refCount = this.refCount;
    req.reserveBlocks(nPrefix);
    const blocks = req.blocks;
    const at = req.nBlocks;
    for (let i = 0; i < nPrefix; i++) {
      const b = prefix[i]!;
      if (undoable) this.undo.recordAttach(b, refCount[b]! > 0 ? 1 : 0);
      // A block is in use exactly while someone holds it.
      if (refCount[b]!++ === 0) {
        this.used++;
        this.free.unlink(b);
      }
      blocks[at + i] = b;
    }
    req.nBlocks = at + nPrefix;
    if (nPrefix === 0) return;
    this.hits += nPrefix;
    req.chainPrev = this.content.hash[prefix[nPrefix - 1]!]!;
    req.tailFill = this.blockSize;
  }

  /**
   * Puts up to `count` tokens from `pos` into the room left in the request's last block, hashing it when full; returns
   * the count.
   */
  private fillTail(req: Request, pos: number, count: number): number {
    const bs = this.blockSize;
    const f = req.tailFill;
    const take = bs - f < count ? bs - f : count;
    req.tailFill = f + take;
    if (f + take === bs) {
      // The request's blocks hold the sequence prefix, so this block is tokens[end - bs, end).
      this.content.hashFullBlock(req, pos + take - bs, req.blocks[req.nBlocks - 1]!);
    }
    return take;
  }

  /**
   * Takes fresh blocks for `count` tokens from `pos` (one miss each). Returns false when the free list runs dry; the
   * blocks taken
   * so far are then in the undo log.
   */
  private appendFresh(req: Request, pos: number, count: number, prefill: boolean): boolean {
    const bs = this.blockSize;
    // In prefill the request's blocks hold exactly the sequence prefix, so a block that this
    // call fills completely inside the prompt takes the prompt's precomputed chain hash.
    // Private blocks take no hash (BlockContent.hashFullBlock).
    const content = this.content;
    const shared = content.sharedPromptBlocks(req);
    const ph = prefill && req.nBlocks < shared ? content.sequenceHashes(req) : null;
    const nb = Math.ceil(count / bs);
    // With a free block for every block of the call it cannot fail: nothing to undo, and its full
    // blocks can be taken as runs, shared and private ones apart.
    const sure = nb <= this.totalBlocks - this.used;
    const sharedRunsTo = sure && this.runs ? shared : 0;
    const privateRunsFrom = sure && prefill && this.runs ? content.untrackedPrivateFrom(req) : -1;
    let placed = 0;
    for (let k = 0; k < nb; k++) {
      const blockIdx = req.nBlocks;
      if (pos === blockIdx * bs && count - placed >= bs) {
        const n = this.takeRun(req, Math.floor((count - placed) / bs), ph, sharedRunsTo, privateRunsFrom);
        if (n > 0) {
          k += n - 1;
          pos += n * bs;
          placed += n * bs;
          continue;
        }
      }
      const blk = this.takeFresh(!sure);
      if (blk === NIL) return false;
      const take = count - placed < bs ? count - placed : bs;
      if (ph !== null && take === bs && blockIdx < shared && pos === blockIdx * bs) {
        content.setSharedBlock(req, blk, blockIdx, ph);
      } else if (take === bs) {
        // A fresh block taken during decode is never hashed when taken (docs/behavior.md
        // "KV cache").
        content.hashFullBlock(req, pos, prefill ? blk : -1);
      }
      pos += take;
      placed += take;
      req.tailFill = take;
      this.refCount[blk] = 1;
      this.used++;
      this.misses++;
      req.appendBlock(blk);
    }
    return true;
  }

  /**
   * Takes up to `full` fresh blocks (there are that many free) for the request's next full blocks
   * as one run, when they can be: shared prompt blocks (hashes ph) before block `sharedRunsTo`,
   * private ones from block `privateRunsFrom` (-1: none). Returns how many it took, 0 for none.
   */
  private takeRun(
    req: Request,
    full: number,
    ph: Float64Array | null,
    sharedRunsTo: number,
    privateRunsFrom: number,
  ): number {
    const blockIdx = req.nBlocks;
    if (ph !== null && blockIdx < sharedRunsTo) {
      const n = full < sharedRunsTo - blockIdx ? full : sharedRunsTo - blockIdx;
      this.takeSharedRun(req, n, ph);
      return n;
    }
    if (privateRunsFrom < 0 || blockIdx < privateRunsFrom) return 0;
    this.takePrivateRun(req, full);
    return full;
  }

  /**
   * Takes n fresh blocks (there are n free) for the request's next n blocks, full and of untracked
   * private content: what n takeFresh() calls would do, without undo records (it cannot fail).
   * Blocks that come from a spent run already are in that state (dropBlocks): only the others are
   * touched.
   */
  private takePrivateRun(req: Request, n: number): void {
    // The blocks go straight into the request's list, taken first: the free list may grow the
    // per-block arrays.
    req.reserveBlocks(n);
    const ids = req.blocks;
    const from = req.nBlocks;
    const to = from + n;
    if (this.fresh.length < n) this.fresh = new Int32Array(n * 2);
    const fresh = this.fresh;
    const nFresh = this.free.popHeadRunInto(ids, from, n, fresh);
    this.content.takePrivate(ids, fresh, nFresh);
    const refCount = this.refCount;
    for (let i = 0; i < nFresh; i++) refCount[ids[fresh[i]!]!] = 1;
    req.nBlocks = to;
    // Every block between an earlier run and this one is a full private block too.
    if (req.kvRunFrom < 0) req.kvRunFrom = from;
    req.kvRunTo = to;
    this.used += n;
    this.misses += n;
    req.chainPrev = PRIVATE_HASH;
    req.tailFill = this.blockSize;
  }

  /**
   * Takes n fresh blocks (there are n free) for the request's next n blocks, full prompt blocks
   * before its private content with chain hashes ph: what n takeFresh() and setSharedBlock() calls
   * would do, in the same order, without undo records (it cannot fail).
   */
  private takeSharedRun(req: Request, n: number, ph: Float64Array): void {
    // Taken first, as in takePrivateRun: the free list may grow the per-block arrays.
    req.reserveBlocks(n);
    const from = req.nBlocks;
    this.free.popHeadRunInto(req.blocks, from, n);
    this.content.takeShared(req, from, n, ph);
    const ids = req.blocks;
    const refCount = this.refCount;
    for (let i = from; i < from + n; i++) refCount[ids[i]!] = 1;
    req.nBlocks = from + n;
    this.used += n;
    this.misses += n;
    req.tailFill = this.blockSize;
  }

  /** Takes the free-list head, evicting its cached identity; with `undoable`, records it for rollback. */
  private takeFresh(undoable: boolean): number {
    const b = this.free.popHead();
    if (b === NIL) return NIL;
    if (undoable) this.content.recordFresh(this.undo, b);
    this.content.evict(b);
    return b;
  }

  /** Undoes the fresh blocks, then the attached blocks, of the allocation in progress. */
  private rollback(req: Request, startBlocks: number): void {
    const undo = this.undo;
    for (let i = undo.freshCount - 1; i >= 0; i--) {
      const b = undo.fresh[i]!;
      this.content.undoFresh(b, undo.freshHash[i]!, undo.freshOwner[i]!, undo.freshPos[i]!);
      this.refCount[b] = 0;
      this.used--;
      this.misses--;
      this.free.pushHead(b);
    }
    for (let i = undo.attachCount - 1; i >= 0; i--) {
      const b = undo.attached[i]!;
      this.refCount[b]!--;
      this.hits--;
      if (undo.attachedWasUsed[i] === 0 && this.refCount[b] === 0) {
        this.used--;
        this.free.pushTail(b);
      }
    }
    // Keep what the request held before this call (the fix for BLIS's leak, docs/behavior.md#q8).
    req.nBlocks = startBlocks;
  }

  reserveScratch(n: number): boolean {
    if (n > this.totalBlocks - this.used) return false;
    if (this.scratchBlocks + n > this.scratch.length)
      this.scratch = grownInt32(this.scratch, (this.scratchBlocks + n) * 2);
    for (let i = 0; i < n; i++) {
      const b = this.free.popHead();
      // A slot written by a proposal overwrites whatever the block cached.
      this.content.evict(b);
      this.refCount[b] = 1;
      this.used++;
      this.scratch[this.scratchBlocks++] = b;
    }
    return true;
  }

  releaseScratch(): void {
    for (let i = this.scratchBlocks - 1; i >= 0; i--) {
      const b = this.scratch[i]!;
      this.refCount[b] = 0;
      this.used--;
      this.free.pushHead(b);
    }
    this.scratchBlocks = 0;
  }

  /** Frees the request's blocks, last to first; freed blocks keep their content (docs/behavior.md "KV cache"). */
  release(req: Request): void {
    this.content.priv?.forget(req);
    this.dropBlocks(req);
  }

  /**
   * Frees the blocks of a request preempted here, which will come back and look its prompt up again: its private cached
   * blocks
   * stay findable for it (kv/privateEntries.ts).
   */
  releaseToRetry(req: Request): void {
    this.content.priv?.retain(req, this.content.hash);
    // Its private prompt blocks now have entries: they are freed one by one.
    req.kvRunFrom = -1;
    req.kvRunTo = -1;
    this.dropBlocks(req);
  }

  private dropBlocks(req: Request): void {
    const blocks = req.blocks;
    const from = req.kvRunFrom;
    const to = req.kvRunTo;
    // Last to first: the blocks after the private run, the run as one spent run, the blocks before.
    if (from < 0) {
      this.freeDown(blocks, req.nBlocks, 0);
    } else {
      this.freeDown(blocks, req.nBlocks, to);
      this.freeSpent(req, from, to);
      this.freeDown(blocks, from, 0);
    }
    req.nBlocks = 0;
    req.kvRunFrom = -1;
    req.kvRunTo = -1;
    req.chainPrev = NO_HASH;
    this.afterRelease();
  }

  /** Frees blocks[lo .. hi), last first, linking those no one else holds to the free list's tail in one pass. */
  private freeDown(blocks: Int32Array, hi: number, lo: number): void {
    if (this.freed.length < hi - lo) this.freed = new Int32Array((hi - lo) * 2);
    const freed = this.freed;
    const refCount = this.refCount;
    let n = 0;
    for (let i = hi - 1; i >= lo; i--) {
      const b = blocks[i]!;
      if (--refCount[b]! === 0) freed[n++] = b;
    }
    this.used -= n;
    this.free.pushTailRun(freed, n);
  }

  /**
   * Frees the request's private run [from, to) as one spent run: its blocks keep the state of a
   * held private block (reference count 1, PRIVATE_HASH, no entry), which takePrivateRun gives
   * them again; the introspection below reports them as free.
   */
  private freeSpent(req: Request, from: number, to: number): void {
    this.free.pushTailSpent(req.blocks, from, to);
    this.used -= to - from;
  }

  /** Hook for the tiered store (offload after every release). */
  protected afterRelease(): void {}

  /** The GPU-tier prefix index (block hash → block ID); the router reads it, never writes it. */
  get prefixIndex(): HashIndex {
    return this.content.index;
  }

  // ---- Introspection for invariant checks and tests ----

  refCountOf(b: number): number {
    return b < this.refCount.length && !this.inSpentRun(b) ? this.refCount[b]! : 0;
  }
  isInUse(b: number): boolean {
    return b < this.refCount.length && this.refCount[b]! > 0 && !this.inSpentRun(b);
  }
  private inSpentRun(b: number): boolean {
    if (this.free.spentBlocks === 0) return false;
    const stamp = this.free.spentStamp;
    if (this.spentCache === null || this.spentCache.stamp !== stamp)
      this.spentCache = { stamp, members: this.free.spentMembers() };
    return this.spentCache.members.has(b);
  }
  freeListIds(): number[] {
    return this.free.toArray();
  }
  /** Block b's chain hash (NO_HASH when it holds nothing findable, PRIVATE_HASH when private). */
  hashOf(b: number): number {
    return b < this.content.hash.length ? this.content.hash[b]! : NO_HASH;
  }
  indexSize(): number {
    return this.content.index.size;
  }
}

import { HashIndex } from "./hashIndex.js";
import { NO_HASH } from "./hash.js";
import { PRIVATE_HASH, PrivateEntries, SHARED, UNTRACKED } from "./privateEntries.js";
import { seqBlockHash, seqHashesInto } from "./seqHash.js";
import type { AllocationUndoLog } from "./undoLog.js";
import type { Request } from "../core/request.js";
import { grownFloat64 } from "../core/typedArrays.js";

/**
 * What the blocks of a KV store hold, and how a prompt finds them: each block's chain hash, the
 * shared prefix index (hash → block), and the entries of private blocks kept off that index
 * (docs/architecture.md "Private blocks"). The store (kv/kvStore.ts) decides who holds which block.
 */
export class BlockContent {
  /** Per block: the chain hash of its content, NO_HASH when it has none, PRIVATE_HASH when private. */
  hash: Float64Array;
  readonly index = new HashIndex(16);
  /** Entries of private blocks; null: every block goes in the shared index. */
  readonly priv: PrivateEntries | null;
  /** The hashes and owners of the blocks a run takes, before it takes them (readOld). */
  private oldHash = new Float64Array(64);
  private oldOwner = new Int32Array(64);

  constructor(
    capacity: number,
    readonly blockSize: number,
    privateBlocks: boolean,
  ) {
    this.hash = new Float64Array(capacity).fill(NO_HASH);
    this.priv = privateBlocks ? new PrivateEntries(capacity, blockSize) : null;
  }

  /** Per-block arrays for `capacity` blocks. */
  grow(capacity: number): void {
    this.hash = grownFloat64(this.hash, capacity, NO_HASH);
    this.priv?.grow(capacity);
  }

  /**
   * Chain hashes of the complete blocks of the request's sequence before its private content
   * (private blocks are never hashed, so their hashes are not computed), computed once. Hashes
   * another request made from the same tokens (a PD decode sub-request's, from its prefill) are
   * extended when they stop short of the blocks this request shares.
   */
  sequenceHashes(req: Request): Float64Array {
    let h = req.hashes;
    const want = this.hashedBlocks(req);
    if (h === null || h.length < want) {
      h = new Float64Array(want);
      seqHashesInto(req.tokens!, want * this.blockSize, this.blockSize, h);
      req.hashes = h;
    }
    return h;
  }

  /** Full blocks of the request's sequence that can be shared: those before its private content. */
  private hashedBlocks(req: Request): number {
    const k = Math.floor(req.tokens!.length / this.blockSize);
    const p = this.priv;
    if (p === null) return k;
    const f = p.firstPrivate(req);
    return f < k ? f : k;
  }

  /** Prompt blocks of the request before its private content: the ones the shared index holds. */
  sharedPromptBlocks(req: Request): number {
    const k = Math.floor(req.inputLen / this.blockSize);
    const p = this.priv;
    if (p === null) return k;
    const f = p.firstPrivate(req);
    return f < k ? f : k;
  }

  /**
   * Hashes the full block of sequence positions [start, start + blockSize) chained on
   * req.chainPrev (the precomputed chain value when the block is the sequence's block number
   * start / blockSize and the chain so far matches, else hashed afresh) and makes it the chain
   * value; with blk ≥ 0 registers it as block blk's content. The hash stays inside this call:
   * returned, a double would be boxed into a new heap number per block.
   */
  hashFullBlock(req: Request, start: number, blk: number): void {
    const bs = this.blockSize;
    const k = Math.floor(start / bs);
    const p = this.priv;
    if (p !== null && k >= p.firstPrivate(req)) {
      // Private content: only its owner asks for it, by position; its hash is never compared.
      req.chainPrev = PRIVATE_HASH;
      if (blk >= 0) {
        this.hash[blk] = PRIVATE_HASH;
        // A block off the block grid never equals a lookup's (chained over other boundaries).
        if (k * bs === start) p.register(req, blk, k);
        else p.owner[blk] = UNTRACKED;
      }
      return;
    }
    const hs = this.sequenceHashes(req);
    let h: number;
    if (k * bs === start && k < hs.length && req.chainPrev === (k === 0 ? NO_HASH : hs[k - 1]!)) h = hs[k]!;
    else h = seqBlockHash(req.tokens!, start, bs, req.chainPrev);
    req.chainPrev = h;
    if (blk >= 0) {
      this.hash[blk] = h;
      this.register(req, blk, k);
    }
  }

  /** Block blk takes the request's prompt block k (k < sharedPromptBlocks) with its chain hash hs[k]. */
  setSharedBlock(req: Request, blk: number, k: number, hs: Float64Array): void {
    const h = hs[k]!;
    req.chainPrev = h;
    this.hash[blk] = h;
    this.register(req, blk, k);
  }

  /**
   * Blocks req.blocks[from .. from + n), just taken fresh, take the request's prompt blocks from
   * position `from` on (all before firstPrivate, hashes in hs): what evict() then setSharedBlock()
   * for each block in turn would do.
   */
  takeShared(req: Request, from: number, n: number, hs: Float64Array): void {
    const ids = req.blocks;
    this.readOld(ids, from, n);
    const hash = this.hash;
    for (let i = 0; i < n; i++) {
      const b = ids[from + i]!;
      this.evictOld(b, i);
      hash[b] = hs[from + i]!;
      this.indexShared(hs, from + i, b);
    }
    req.chainPrev = hs[from + n - 1]!;
  }

  /**
   * Blocks ids[at[0 .. n)], just taken fresh, hold full blocks of untrackedPrivateFrom()'s kind:
   * what evict() then hashFullBlock() would leave each with, nothing done for a block that held
   * such content before.
   */
  takePrivate(ids: Int32Array, at: Int32Array, n: number): void {
    const p = this.priv!;
    this.readOldAt(ids, at, n);
    const oldHash = this.oldHash;
    const oldOwner = this.oldOwner;
    const hash = this.hash;
    for (let i = 0; i < n; i++) {
      if (oldHash[i] === PRIVATE_HASH && oldOwner[i] === UNTRACKED) continue;
      const b = ids[at[i]!]!;
      this.evictOld(b, i);
      hash[b] = PRIVATE_HASH;
      p.owner[b] = UNTRACKED;
    }
  }

  // The blocks a run takes come off the free list's head, long unused: reading a block's hash and
  // owner is a cache miss. Reading them for the whole run first, in a loop of independent loads,
  // lets the processor wait for those misses side by side rather than one after another.

  /** Reads the hash and owner of blocks ids[from .. from + n) into oldHash and oldOwner. */
  private readOld(ids: Int32Array, from: number, n: number): void {
    this.reserveOld(n);
    const hash = this.hash;
    const old = this.oldHash;
    for (let i = 0; i < n; i++) old[i] = hash[ids[from + i]!]!;
    const p = this.priv;
    if (p === null) return;
    const owner = p.owner;
    const oldOwner = this.oldOwner;
    for (let i = 0; i < n; i++) oldOwner[i] = owner[ids[from + i]!]!;
  }

  /** Reads the hash and owner of blocks ids[at[0 .. n)] (private blocks kept apart) into oldHash and oldOwner. */
  private readOldAt(ids: Int32Array, at: Int32Array, n: number): void {
    this.reserveOld(n);
    const hash = this.hash;
    const owner = this.priv!.owner;
    const old = this.oldHash;
    const oldOwner = this.oldOwner;
    for (let i = 0; i < n; i++) {
      const b = ids[at[i]!]!;
      old[i] = hash[b]!;
      oldOwner[i] = owner[b]!;
    }
  }

  private reserveOld(n: number): void {
    if (this.oldHash.length >= n) return;
    this.oldHash = new Float64Array(n * 2);
    this.oldOwner = new Int32Array(n * 2);
  }

  /** evict(b) for block b whose hash and owner readOld put at i. */
  private evictOld(b: number, i: number): void {
    if (this.oldHash[i] === NO_HASH) return;
    this.dropEntry(b, this.oldHash, i, this.priv === null ? SHARED : this.oldOwner[i]!);
  }

  /**
   * First block position from which the request's full blocks hold private content without an
   * entry to keep (kv/privateEntries.ts), taken by takePrivate(); -1 when every block goes
   * through hashFullBlock (no private blocks, or the request's entries are kept).
   */
  untrackedPrivateFrom(req: Request): number {
    const p = this.priv;
    if (p === null || req.kvTracker === p) return -1;
    return p.firstPrivate(req);
  }

  /** Makes block blk, holding the content of the request's block k (hash[blk] set), findable. */
  private register(req: Request, blk: number, k: number): void {
    const p = this.priv;
    if (p === null || k < p.firstPrivate(req)) this.indexShared(this.hash, blk, blk);
    else p.register(req, blk, k);
  }

  /** Puts block blk, whose content has hash keys[i], in the shared index. */
  private indexShared(keys: Float64Array, i: number, blk: number): void {
    this.index.setAt(keys, i, blk);
    if (this.priv !== null) this.priv.owner[blk] = SHARED;
  }

  /**
   * Longest run of cached blocks matching the request's whole prompt, into out[0 .. result)
   * (docs/behavior.md "Prefix lookup, allocation and rollback"). out holds the prompt's blocks.
   */
  cachedPrefix(req: Request, out: Int32Array): number {
    const k = Math.floor(req.inputLen / this.blockSize);
    const shared = this.sharedPromptBlocks(req);
    const hashes = shared > 0 ? this.sequenceHashes(req) : null;
    let n = shared > 0 ? this.index.findRunAt(hashes!, 0, shared, out) : 0;
    if (n < shared) return n;
    for (; n < k; n++) {
      const b = this.priv!.lookup(req, n, this.hash);
      if (b < 0) return n;
      out[n] = b;
    }
    return n;
  }

  /** Records block b, about to be taken fresh, with its content, for a rollback. */
  recordFresh(undo: AllocationUndoLog, b: number): void {
    const p = this.priv;
    if (p === null) undo.recordFresh(b, this.hash, SHARED, 0);
    else undo.recordFresh(b, this.hash, p.owner[b]!, p.pos[b]!);
  }

  /** Drops block b's content before it takes other content. */
  evict(b: number): void {
    if (this.hash[b] === NO_HASH) return;
    this.dropEntry(b, this.hash, b, this.priv === null ? SHARED : this.priv.owner[b]!);
    this.hash[b] = NO_HASH;
  }

  /** Drops the entry of block b's content (hash keys[i], entry owner `owner`) from wherever it is kept. */
  private dropEntry(b: number, keys: Float64Array, i: number, owner: number): void {
    // Compat (docs/behavior.md#q13): the entry goes even if it points at another block.
    if (owner === SHARED) this.index.deleteAt(keys, i);
    else this.priv!.evict(b);
  }

  /**
   * Rolls back a fresh block of a failed allocation: its new content goes (with its entry if the
   * entry names it) and the content it had (hash, entry owner and position) comes back.
   */
  undoFresh(b: number, old: number, owner: number, pos: number): void {
    const p = this.priv;
    const h = this.hash[b]!;
    if (h !== NO_HASH) {
      if (p === null || p.owner[b] === SHARED) {
        if (this.index.get(h) === b) this.index.delete(h);
      } else {
        p.unregister(b);
      }
    }
    this.hash[b] = old;
    if (old === NO_HASH) return;
    if (p !== null) p.restore(b, owner, pos);
    if (owner === SHARED) this.index.set(old, b);
  }
}

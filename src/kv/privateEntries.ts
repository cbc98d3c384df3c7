// Prefix-index entries of private blocks, kept off the shared index (docs/architecture.md
// "Private blocks").
//
// A block whose chain covers a position of TokenSeq.privateFrom or later holds content that only
// its own request can ever ask for: it is looked up by that request alone, and only by its prompt
// positions, when it is readmitted after a preemption. Putting such a block in the shared hash
// index and taking it out again when the block is reused costs two random accesses into a table
// of megabytes per block, for entries that in most runs nobody reads. Nor is such a block's hash
// ever compared with another's, so it is not computed (PRIVATE_HASH). Instead of index entries:
//  - a request that was never preempted here needs no entries: while it holds its blocks, the
//    entry of each full private block is that block (no other block can have its content), and
//    once it leaves for good, nobody looks its content up again;
//  - at a preemption, the request's full private prompt blocks become its entries, one per prompt
//    block position, and from then on every change the shared index would make to those entries
//    is made to them: new full blocks, reuse of a block holding the content (the entry goes, even
//    when it names another block, as docs/behavior.md#q13 says of the shared index), rollback.
// Lookups then give exactly what the shared index would give.

import { NO_HASH } from "./hash.js";
import type { Request } from "../core/request.js";
import { grownInt32 } from "../core/typedArrays.js";

/**
 * The hash of a private block, and the chain value after one: its content is never compared with
 * another block's, so its hash is not computed. Not an integer, so no real hash, and not NO_HASH.
 */
export const PRIVATE_HASH = 0.5;

/** owner[b]: block b's hash is in the shared index. */
export const SHARED = -2;
/** owner[b]: a private block without an entry to maintain (see above). */
export const UNTRACKED = -1;

export class PrivateEntries {
  /** Per block: SHARED, UNTRACKED, or the key of the preempted request whose entry may name it. */
  owner: Int32Array;
  /** Per block with a key in owner: the prompt block position of its content. */
  pos: Int32Array;
  private readonly tracked = new Map<number, Request>();
  private nextKey = 0;

  constructor(
    capacity: number,
    private readonly blockSize: number,
  ) {
    this.owner = new Int32Array(capacity);
    this.pos = new Int32Array(capacity);
  }

  /** Per-block arrays for `capacity` blocks (the store's arrays grow with use). */
  grow(capacity: number): void {
    this.owner = grownInt32(this.owner, capacity);
    this.pos = grownInt32(this.pos, capacity);
  }

  /** First block position of the request's private content. */
  firstPrivate(req: Request): number {
    return Math.floor(req.tokens!.privateFrom / this.blockSize);
  }

  /** Block `blk` of `req` became full at position k ≥ firstPrivate(req) (its hash is set). */
  register(req: Request, blk: number, k: number): void {
    const e = req.kvEntries;
    if (e !== null && req.kvTracker === this && k < e.length) {
      e[k] = blk;
      this.owner[blk] = req.kvEntryId;
      this.pos[blk] = k;
    } else {
      this.owner[blk] = UNTRACKED;
    }
  }

  /**
   * The shared index's answer for the content of `req`'s prompt block k ≥ firstPrivate(req):
   * a block ID or -1. `hash` is the store's per-block hash array.
   */
  lookup(req: Request, k: number, hash: Float64Array): number {
    if (req.kvTracker === this) return req.kvEntries![k]!;
    if (k >= req.nBlocks) return -1;
    const b = req.blocks[k]!;
    return hash[b] !== NO_HASH ? b : -1;
  }

  /** Private block b (owner not SHARED) loses its content: its entry goes, whatever it names. */
  evict(b: number): void {
    const o = this.owner[b]!;
    if (o >= 0) {
      const r = this.tracked.get(o);
      if (r !== undefined) r.kvEntries![this.pos[b]!] = -1;
    }
  }

  /** Private block b, taken by the failed allocation, loses its content: its entry goes if it names b. */
  unregister(b: number): void {
    const o = this.owner[b]!;
    if (o < 0) return;
    const r = this.tracked.get(o);
    if (r === undefined) return;
    const e = r.kvEntries!;
    const k = this.pos[b]!;
    if (e[k] === b) e[k] = -1;
  }

  /** Private block b gets back content it had (owner o, position k): its entry names b again. */
  restore(b: number, o: number, k: number): void {
    this.owner[b] = o;
    this.pos[b] = k;
    if (o < 0) return;
    const r = this.tracked.get(o);
    if (r !== undefined) r.kvEntries![k] = b;
  }

  /**
   * `req` is being preempted and will look its prompt up again: from now on its private prompt
   * blocks' entries are kept. Its full blocks are its entries at this point. A request is only
   * ever preempted by one store: requests do not move between instances, and the sub-requests of
   * a PD split, which do, have no private content (TokenSeq.shared).
   */
  retain(req: Request, hash: Float64Array): void {
    if (req.kvTracker === this) return;
    const promptBlocks = Math.floor(req.inputLen / this.blockSize);
    const first = this.firstPrivate(req);
    if (first >= promptBlocks) return;
    const e = new Int32Array(promptBlocks).fill(-1);
    const key = this.nextKey++;
    this.tracked.set(key, req);
    req.kvTracker = this;
    req.kvEntries = e;
    req.kvEntryId = key;
    const n = req.nBlocks < promptBlocks ? req.nBlocks : promptBlocks;
    for (let k = first; k < n; k++) {
      const b = req.blocks[k]!;
      if (hash[b] === NO_HASH) continue;
      e[k] = b;
      this.owner[b] = key;
      this.pos[b] = k;
    }
  }

  /** `req` leaves this store for good: nobody will look its content up again. */
  forget(req: Request): void {
    if (req.kvTracker !== this) return;
    this.tracked.delete(req.kvEntryId);
    req.kvTracker = null;
    req.kvEntries = null;
    req.kvEntryId = -1;
  }

  /** Requests whose entries are kept (tests, invariant checks). */
  trackedCount(): number {
    return this.tracked.size;
  }
}

import { blockHashChain } from "../../kv/hash.js";
import type { Request } from "../../core/request.js";
import { LruHashSet } from "./lruHashSet.js";

/**
 * Fixed per-instance capacity of the router-side prefix index (docs/behavior.md
 * "Routing and scorers").
 */
export const PREFIX_INDEX_CAPACITY = 10000;

/**
 * Router-side per-instance LRU sets of prompt block hashes (touch order = the per-set counter of
 * docs/behavior.md "Routing and scorers": the entry with the smallest counter is the least recently
 * touched).
 */
export class RouterPrefixIndex {
  private readonly sets: LruHashSet[];
  constructor(
    numInstances: number,
    private readonly blockSize: number,
    capacity = PREFIX_INDEX_CAPACITY,
  ) {
    this.sets = Array.from({ length: numInstances }, () => new LruHashSet(capacity));
  }

  /** Chain hashes of the prompt's complete blocks (shared with the KV cache: same equality). */
  hashes(req: Request): Float64Array {
    let h = req.promptHashes;
    if (h === null) {
      h = blockHashChain(req.tokens!, req.inputLen, this.blockSize);
      req.promptHashes = h;
    }
    return h;
  }

  /** matched_i / K per instance, 0 for all when K = 0. */
  score(req: Request, out: Float64Array): void {
    const h = this.hashes(req);
    const k = h.length;
    if (k === 0) return;
    for (let i = 0; i < this.sets.length; i++) {
      const set = this.sets[i]!;
      let m = 0;
      while (m < k && set.has(h[m]!)) m++;
      out[i] = m / k;
    }
  }

  /** Touches every block hash of the prompt, in block order, in the chosen instance's set. */
  record(req: Request, chosen: number): void {
    const h = this.hashes(req);
    const set = this.sets[chosen]!;
    for (let i = 0; i < h.length; i++) set.touch(h[i]!);
  }
}

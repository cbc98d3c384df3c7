import { seqHashesInto } from "../../kv/seqHash.js";
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
  /** Prompt hashes of the request last asked about (score, then record, see the same request). */
  private scratch = new Float64Array(64);
  private count = 0;
  private last: Request | null = null;
  constructor(
    numInstances: number,
    private readonly blockSize: number,
    capacity = PREFIX_INDEX_CAPACITY,
  ) {
    this.sets = Array.from({ length: numInstances }, () => new LruHashSet(capacity));
  }

  /**
   * Chain hashes of the prompt's complete blocks (the KV cache's chain: same equality) in
   * this.scratch[0 .. result). Not kept on the request, which may wait long before its KV lookup.
   */
  private hashes(req: Request): number {
    if (req === this.last) return this.count;
    const k = Math.floor(req.inputLen / this.blockSize);
    if (this.scratch.length < k) this.scratch = new Float64Array(k * 2);
    this.count = seqHashesInto(req.tokens!, req.inputLen, this.blockSize, this.scratch);
    this.last = req;
    return this.count;
  }

  /** matched_i / K per instance, 0 for all when K = 0. */
  score(req: Request, out: Float64Array): void {
    const k = this.hashes(req);
    const h = this.scratch;
    if (k === 0) return;
    for (let i = 0; i < this.sets.length; i++) {
      const set = this.sets[i]!;
      let m = 0;
      while (m < k && set.hasAt(h, m)) m++;
      out[i] = m / k;
    }
  }

  /** Touches every block hash of the prompt, in block order, in the chosen instance's set. */
  record(req: Request, chosen: number): void {
    const k = this.hashes(req);
    const h = this.scratch;
    const set = this.sets[chosen]!;
    for (let i = 0; i < k; i++) set.touchAt(h, i);
  }
}

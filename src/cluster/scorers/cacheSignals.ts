// The instance prefix caches as the cache-aware scorers (precise-prefix-cache, no-hit-lru) see
// them: live, or a frozen copy refreshed lazily every --cache-signal-delay ticks
// (docs/behavior.md "Snapshots and signal freshness").
import { HashIndex } from "../../kv/hashIndex.js";
import { seqHashesInto } from "../../kv/seqHash.js";
import type { Request } from "../../core/request.js";
import { UserError } from "../../util/errors.js";

/** What a scorer may ask of the instance caches. */
export interface CacheSignals {
  /** Leading entries of `hashes` present in instance `index`'s GPU-tier prefix index, stopping at the first miss. */
  cachedBlocks(index: number, hashes: Float64Array): number;
}

/** The cache signals of a router state, refreshed at the start of every router-state build. */
export class CacheSignalProvider implements CacheSignals {
  /** Frozen copies per instance; null when the delay is 0 (every query reads the live index). */
  private readonly copies: HashIndex[] | null;
  private last = 0;
  private readonly caches: { readonly prefixIndex: HashIndex }[];

  constructor(
    caches: readonly { readonly prefixIndex: HashIndex }[],
    private readonly delay: number,
  ) {
    this.caches = [...caches];
    // The copies start empty with last = 0, so until the first build at or after `delay` every
    // instance reports nothing cached (Compat, docs/behavior.md#c28).
    this.copies = delay > 0 ? caches.map(() => new HashIndex(16)) : null;
  }

  /** An instance added during the run (autoscaling); its frozen copy starts empty like the others'. */
  addCache(cache: { readonly prefixIndex: HashIndex }): void {
    this.caches.push(cache);
    if (this.copies !== null) this.copies.push(new HashIndex(16));
  }

  /** Re-copies every instance's index when at least `delay` ticks passed since the last copy. */
  refresh(clock: number): void {
    const copies = this.copies;
    if (copies === null || clock - this.last < this.delay) return;
    for (let i = 0; i < copies.length; i++) copies[i]!.copyFrom(this.caches[i]!.prefixIndex);
    this.last = clock;
  }

  cachedBlocks(index: number, hashes: Float64Array): number {
    const idx = this.copies !== null ? this.copies[index]! : this.caches[index]!.prefixIndex;
    let n = 0;
    while (n < hashes.length && idx.get(hashes[n]!) >= 0) n++;
    return n;
  }
}

let lastReq: Request | null = null;
let lastCount = 0;
let buffer = new Float64Array(64);

/**
 * Chain hashes of the request's complete prompt blocks (the KV cache's chain: same equality), valid
 * until the next call for another request. Not kept on the request, which may wait long before
 * its KV lookup (docs/architecture.md "Hot-path memory layout").
 */
export function promptHashes(req: Request, blockSize: number): Float64Array {
  if (req !== lastReq) {
    const k = Math.floor(req.inputLen / blockSize);
    if (buffer.length < k) buffer = new Float64Array(k * 2);
    lastCount = seqHashesInto(req.tokens!, req.inputLen, blockSize, buffer);
    lastReq = req;
  }
  return buffer.subarray(0, lastCount);
}

/** --cache-signal-delay is checked whatever the scorers, as BLIS does. */
export function checkCacheSignalDelay(delay: number): void {
  if (delay < 0) throw new UserError(`--cache-signal-delay must be >= 0, got ${delay}`);
}

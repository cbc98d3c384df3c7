import type { z } from "zod";
import type { Scorer, ScorerDescriptor } from "./scorer.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import { checkCacheSignalDelay, promptHashes } from "./cacheSignals.js";
import { CACHE_SIGNAL_FLAG, cacheSignalParams } from "./precisePrefixCache.js";

/**
 * llm-d's no-hit-LRU scorer: a request whose prompt is cached nowhere ("cold") goes preferably to
 * the instance that least recently received a cold request; a "warm" request scores 0.5 everywhere
 * (docs/behavior.md "Routing and scorers").
 */
export class NoHitLruScorer implements Scorer {
  readonly name = "no-hit-lru";
  /** Instance indices that received cold requests, most recent first. */
  private readonly mru: number[] = [];
  private lastCold = false;
  private lastId = "";
  /** Scratch: each instance's candidate position, -1 when it is not a candidate. */
  private readonly pos: Int32Array;

  constructor(
    numInstances: number,
    private readonly blockSize: number,
    readonly cacheSignalDelay: number,
  ) {
    this.pos = new Int32Array(numInstances);
  }

  score(req: Request, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    const n = s.length;
    const cold = !this.warm(req, state);
    this.lastCold = cold;
    this.lastId = req.id;
    if (!cold) {
      out.fill(0.5, 0, n);
      return;
    }
    if (n === 1) {
      out[0] = 1.0;
      return;
    }
    const pos = this.pos;
    pos.fill(-1);
    for (let k = 0; k < n; k++) pos[s[k]!.index] = k;
    // Instances that are no longer candidates leave the list for good.
    let w = 0;
    for (const idx of this.mru) if (pos[idx]! >= 0) this.mru[w++] = idx;
    this.mru.length = w;
    // Ranks: unlisted candidates in index order, then listed ones from least to most recent.
    // Unlisted candidates are marked −1 first (listed ones 0) to be found in index order.
    out.fill(-1, 0, n);
    for (const idx of this.mru) out[pos[idx]!] = 0;
    let rank = 0;
    for (let k = 0; k < n; k++) if (out[k] === -1) out[k] = 1 - rank++ / (n - 1);
    for (let j = w - 1; j >= 0; j--) out[pos[this.mru[j]!]!] = 1 - rank++ / (n - 1);
  }

  /** Moves the chosen instance to the front when it received the cold request just scored. */
  observe(req: Request, chosen: number): void {
    if (!this.lastCold || this.lastId !== req.id) return;
    const at = this.mru.indexOf(chosen);
    if (at >= 0) this.mru.splice(at, 1);
    this.mru.unshift(chosen);
  }

  /** Warm: some candidate has a cached prefix block (scanned in index order, stopping at the first). */
  private warm(req: Request, state: RouterState): boolean {
    const cache = state.cache;
    if (cache === undefined || cache === null) return false;
    const h = promptHashes(req, this.blockSize);
    if (h.length === 0) return false;
    for (const snap of state.snapshots) if (cache.cachedBlocks(snap.index, h) > 0) return true;
    return false;
  }
}

export const noHitLru: ScorerDescriptor<z.infer<typeof cacheSignalParams>> = {
  name: "no-hit-lru",
  description: "cold requests to the least recently used instance",
  params: cacheSignalParams,
  flags: [CACHE_SIGNAL_FLAG],
  validate: (p) => checkCacheSignalDelay(p.cacheSignalDelay),
  create: (p, c) => new NoHitLruScorer(c.numInstances, c.blockSize, p.cacheSignalDelay),
};

import { z } from "zod";
import { minMaxInPlace, type Scorer, type ScorerDescriptor } from "./scorer.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";
import type { ParamFlag } from "../../util/policyRegistry.js";
import { checkCacheSignalDelay, promptHashes } from "./cacheSignals.js";

/**
 * llm-d's precise prefix-cache scorer: c_i = leading prompt blocks cached in instance i's real KV
 * cache (GPU tier, as of the last cache-signal refresh); min-max↑ over c_i, 1.0 for all when every
 * c_i is equal (no blocks, or nothing cached anywhere) (docs/behavior.md "Routing and scorers").
 */
export class PrecisePrefixCacheScorer implements Scorer {
  readonly name = "precise-prefix-cache";
  constructor(
    private readonly blockSize: number,
    readonly cacheSignalDelay: number,
  ) {}
  score(req: Request, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    const cache = state.cache;
    if (cache === undefined || cache === null) {
      out.fill(1.0, 0, s.length); // no cache signals: nothing cached anywhere
      return;
    }
    const h = promptHashes(req, this.blockSize);
    for (let i = 0; i < s.length; i++) out[i] = h.length === 0 ? 0 : cache.cachedBlocks(s[i]!.index, h);
    minMaxInPlace(out, s.length, false);
  }
  observe(): void {}
}

export const cacheSignalParams = z.object({ cacheSignalDelay: z.number().int().default(50000) });

/** Shared by the two cache-aware scorers (one flag, one key). */
export const CACHE_SIGNAL_FLAG: ParamFlag = {
  key: "cacheSignalDelay",
  flag: "--cache-signal-delay",
  type: "int64",
  group: "policy",
  help: "ticks between refreshes of the instance prefix caches read by precise-prefix-cache and no-hit-lru; 0 = live",
};

export const precisePrefixCache: ScorerDescriptor<z.infer<typeof cacheSignalParams>> = {
  name: "precise-prefix-cache",
  description: "prefix cached in the instance's KV cache",
  params: cacheSignalParams,
  flags: [CACHE_SIGNAL_FLAG],
  validate: (p) => checkCacheSignalDelay(p.cacheSignalDelay),
  create: (p, c) => new PrecisePrefixCacheScorer(c.blockSize, p.cacheSignalDelay),
};

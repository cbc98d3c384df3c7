// What routing policies and scorers are built from: a module of its own so that the routing and
// scorer registries do not import each other.

import type { SloParams } from "../../policy/sloTiers.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";

/** One weighted-routing scorer and its weight ("name:weight" in --routing-scorers). */
export interface ScorerSpec {
  name: string;
  weight: number;
}

/** One signal of the weighted routing pipeline: a score in [0, 1] per candidate. */
export interface Scorer {
  readonly name: string;
  /**
   * --cache-signal-delay of a scorer that reads the instance prefix caches (`state.cache`); absent
   * for the others.
   */
  readonly cacheSignalDelay?: number;
  /** Writes one score per candidate (out[k] for state.snapshots[k]) into `out` (pre-filled with 0). */
  score(req: Request, state: RouterState, out: Float64Array): void;
  /** Called after the pick with the chosen instance's index (prefix-index and LRU updates). */
  observe(req: Request, chosen: number): void;
}

/** A scorer chosen for a run: its spec, with its parameters read at configuration time. */
export interface ScorerChoice extends ScorerSpec {
  readonly build: (ctx: RoutingContext) => Scorer;
}

export interface RoutingContext {
  numInstances: number;
  blockSize: number;
  scorers: readonly ScorerChoice[];
  sloCacheWeights: readonly [number, number, number];
  slo: SloParams;
}

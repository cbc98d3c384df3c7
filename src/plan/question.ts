// What a plan is asked: the configuration every candidate shares, the load, the SLOs, the
// candidate space, prices, and how hard to search.

import type { RunInput } from "../config/runOptions.js";
import type { RunExecutor } from "../experiment/pool.js";
import type { PriceTable } from "./prices.js";
import type { PdLayout } from "./shapes.js";
import type { SeedRule, Slo } from "./slo.js";

export interface PlanQuestion {
  /** Run options every candidate shares (model, workload, routing, ...), without GPU, TP, instances, rate, seed. */
  base: RunInput;
  /** Offered arrival rate, requests/s. */
  rate: number;
  /** Requests per simulation. */
  requests: number;
  slos: Slo[];
  seeds: number[];
  seedRule: SeedRule;
  gpus: string[];
  /** Whether the GPU list was given (a GPU without a price is then an error, else it is skipped). */
  gpusGiven: boolean;
  tps: number[];
  pds: PdLayout[];
  maxNumSeqs: number[];
  maxNumBatchedTokens: number[];
  prices: PriceTable;
  /** Largest number of copies of a shape tried. */
  maxUnits: number;
  /** Shapes searched side by side in one step (fixed, so the path does not depend on the worker count). */
  shapesPerStep: number;
  /** Wall-clock limit per simulation, s. */
  timeoutS: number;
  /**
   * A point keeps up with the load when, in every seed, the requests completing in the second half
   * of the arrivals are at least this fraction of those arriving then (as `blis saturation` judges).
   */
  minCompletionRatio: number;
}

export interface PlanRuntime {
  /** Worker processes of the local pool (ignored with `pool`). */
  jobs: number;
  /** A pool or work queue kept open by the caller. */
  pool?: RunExecutor;
  /** Output directory: evaluations.jsonl (reused on a rerun) and the result files; null = none. */
  outDir: string | null;
  /** One line per search step on stderr. */
  progress: boolean;
  say: (line: string) => void;
}

export const PLAN_DEFAULTS = {
  seeds: [1, 2, 3],
  tps: [1, 2, 4, 8],
  maxUnits: 64,
  shapesPerStep: 4,
  timeoutS: 600,
  minCompletionRatio: 0.97,
} as const;

/** Requests per simulation when not given: a minute of arrivals, at least 500 and at most 6000. */
export function defaultRequests(rate: number): number {
  return Math.min(6000, Math.max(500, Math.ceil(rate * 60)));
}

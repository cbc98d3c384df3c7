// What routing policies and scorers are built from: a module of its own so that the routing and
// scorer registries do not import each other.

import type { SloParams } from "../../policy/sloTiers.js";

/** One weighted-routing scorer and its weight ("name:weight" in --routing-scorers). */
export interface ScorerSpec {
  name: string;
  weight: number;
}

export interface RoutingContext {
  numInstances: number;
  blockSize: number;
  scorers: readonly ScorerSpec[];
  sloCacheWeights: readonly [number, number, number];
  slo: SloParams;
  /** Policy parameters by option key (scorer parameters); absent keys take their defaults. */
  params?: Readonly<Record<string, unknown>>;
}

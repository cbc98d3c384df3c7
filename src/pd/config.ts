// The resolved PD setup a cluster is built from (docs/prefill-decode.md).
import type { LatencyModel } from "../latency/model.js";
import type { ScorerSpec } from "../cluster/routing/context.js";
import type { PoolCounts } from "./topology.js";
import type { TransferSettings } from "./transfer.js";

/** A pool's own instance settings (its TP, GPU, latency backend or max-model-len differ). */
export interface PoolInstanceSettings {
  latency: () => LatencyModel;
  totalKvBlocks: number;
  /** 0 = unlimited. */
  maxModelLen: number;
}

export interface PdConfig {
  counts: PoolCounts;
  decider: string;
  transfer: TransferSettings;
  /** Per-pool weighted-routing scorers; null: a pool policy of the main routing policy's kind. */
  prefillScorers: readonly ScorerSpec[] | null;
  decodeScorers: readonly ScorerSpec[] | null;
  /** Settings of the prefill-only instances; null: the global ones. */
  prefillPool: PoolInstanceSettings | null;
  /** Settings of the decode and shared instances; null: the global ones. */
  decodePool: PoolInstanceSettings | null;
}

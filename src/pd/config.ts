// The resolved PD setup a cluster is built from (docs/prefill-decode.md).
import type { LatencyModel } from "../latency/model.js";
import type { RoutingPolicy } from "../cluster/routing/routing.js";
import type { DeciderContext, PdDecider } from "./deciders.js";
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
  /** The cluster's instances (pools first, by index; the rest are never routed to). */
  numInstances: number;
  blockSize: number;
  decider: string;
  buildDecider: (context: DeciderContext) => PdDecider;
  /** --cache-signal-delay, used when the decider reads the instance caches. */
  cacheSignalDelay: number;
  transfer: TransferSettings;
  /**
   * Each pool's router (each call builds one with its own state): weighted with the pool's
   * --{prefill,decode}-routing-scorers when given, else the main routing policy's kind and scorers.
   */
  prefillPolicy: () => RoutingPolicy;
  decodePolicy: () => RoutingPolicy;
  /** Settings of the prefill-only instances; null: the global ones. */
  prefillPool: PoolInstanceSettings | null;
  /** Settings of the decode and shared instances; null: the global ones. */
  decodePool: PoolInstanceSettings | null;
}

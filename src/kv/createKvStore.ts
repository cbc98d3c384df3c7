import { KvStore } from "./kvStore.js";
import { TieredKvStore } from "./tieredKvStore.js";
import type { Logger } from "../util/log.js";
import type { KvCache } from "./kvCache.js";

/** One instance's GPU KV capacity. */
export interface KvSettings {
  totalKvBlocks: number;
  blockSize: number;
}

/** A CPU tier below the GPU blocks (docs/behavior.md "CPU offload tier"). */
export interface CpuTierSettings {
  /** CPU blocks per instance (> 0). */
  cpuBlocks: number;
  /** GPU utilization above which freed cached blocks move to the CPU tier. */
  offloadThreshold: number;
  /** Tokens per tick a reload moves. */
  transferBandwidth: number;
  /** Fixed ticks per reloaded block. */
  transferBaseLatency: number;
}

/** The single-tier store, or the GPU+CPU tiered store when a CPU tier is given. */
export function createKvStore(s: KvSettings, tier: CpuTierSettings | null = null, log?: Logger): KvCache {
  if (tier !== null) {
    return new TieredKvStore(
      s.totalKvBlocks,
      s.blockSize,
      tier.cpuBlocks,
      tier.offloadThreshold,
      tier.transferBandwidth,
      tier.transferBaseLatency,
      (req) => log?.warn(`reload extended the cached prefix of ${req.id} past its chunk; treated as an empty range`),
    );
  }
  return new KvStore(s.totalKvBlocks, s.blockSize);
}

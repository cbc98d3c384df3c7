import { KvStore } from "./kvStore.js";
import { TieredKvStore } from "./tieredKvStore.js";
import type { Logger } from "../util/log.js";
import type { KvCache } from "./kvCache.js";

export interface KvSettings {
  totalKvBlocks: number;
  blockSize: number;
  kvCpuBlocks: number;
  kvOffloadThreshold: number;
  kvTransferBandwidth: number;
  kvTransferBaseLatency: number;
}

/** Single-tier store, or the GPU+CPU tiered store when CPU blocks are configured. */
export function createKvStore(s: KvSettings, log?: Logger): KvCache {
  if (s.kvCpuBlocks > 0) {
    return new TieredKvStore(
      s.totalKvBlocks,
      s.blockSize,
      s.kvCpuBlocks,
      s.kvOffloadThreshold,
      s.kvTransferBandwidth,
      s.kvTransferBaseLatency,
      (req) => log?.warn(`reload extended the cached prefix of ${req.id} past its chunk; treated as an empty range`),
    );
  }
  return new KvStore(s.totalKvBlocks, s.blockSize);
}

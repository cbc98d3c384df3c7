import { KvStore } from "./kvStore.js";

export interface KvSettings {
  totalKvBlocks: number;
  blockSize: number;
  kvCpuBlocks: number;
  kvOffloadThreshold: number;
  kvTransferBandwidth: number;
  kvTransferBaseLatency: number;
}

/** Single-tier store, or the GPU+CPU tiered store when CPU blocks are configured. */
export function createKvStore(s: KvSettings): KvStore {
  return new KvStore(s.totalKvBlocks, s.blockSize);
}

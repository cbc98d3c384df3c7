import type { RunOptions } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { checkCacheSignalDelay } from "../cluster/scorers/cacheSignals.js";

/** Stage: instance and batch limits (step 5). */
export function validateLimits(o: RunOptions): void {
  const positive: [keyof RunOptions, string][] = [
    ["numInstances", "--num-instances"],
    ["totalKvBlocks", "--total-kv-blocks"],
    ["blockSizeInTokens", "--block-size-in-tokens"],
    ["maxNumRunningReqs", "--max-num-running-reqs"],
    ["maxNumScheduledTokens", "--max-num-scheduled-tokens"],
  ];
  for (const [k, flag] of positive) {
    if (!((o[k] as number) > 0)) throw new UserError(`${flag} must be > 0, got ${o[k] as number}`);
  }
  if (o.longPrefillTokenThreshold < 0) {
    throw new UserError(`--long-prefill-token-threshold must be >= 0, got ${o.longPrefillTokenThreshold}`);
  }
}

/** Stage: KV tiers and snapshots (step 9). */
export function validateKv(o: RunOptions): void {
  if (o.kvCpuBlocks < 0) throw new UserError(`--kv-cpu-blocks must be >= 0, got ${o.kvCpuBlocks}`);
  if (!Number.isFinite(o.kvOffloadThreshold) || o.kvOffloadThreshold < 0 || o.kvOffloadThreshold > 1) {
    throw new UserError(`--kv-offload-threshold must be a finite value in [0, 1], got ${o.kvOffloadThreshold}`);
  }
  if (o.kvCpuBlocks > 0 && (!Number.isFinite(o.kvTransferBandwidth) || o.kvTransferBandwidth <= 0)) {
    throw new UserError(`--kv-transfer-bandwidth must be a finite value > 0, got ${o.kvTransferBandwidth}`);
  }
  if (o.kvTransferBaseLatency < 0) {
    throw new UserError(`--kv-transfer-base-latency must be >= 0, got ${o.kvTransferBaseLatency}`);
  }
  if (o.snapshotRefreshInterval < 0) {
    throw new UserError(`--snapshot-refresh-interval must be >= 0, got ${o.snapshotRefreshInterval}`);
  }
  checkCacheSignalDelay(o.cacheSignalDelay);
}

// The KV cache's CPU tier as a feature of a run (docs/behavior.md "CPU offload tier"): its four
// flags, checked whether or not it is on, and every instance's KV store built with the tier.

import { z } from "zod";
import { anyNumber } from "../../util/policyRegistry.js";
import { UserError } from "../../util/errors.js";
import { createKvStore, type CpuTierSettings } from "../../kv/createKvStore.js";
import type { Feature } from "../feature.js";

const params = z.object({
  kvCpuBlocks: z.number().int().default(0),
  kvOffloadThreshold: anyNumber.default(0.9),
  kvTransferBandwidth: anyNumber.default(100.0),
  kvTransferBaseLatency: z.number().int().default(0),
});

type CpuTierParams = z.infer<typeof params>;

/** Checked with or without a CPU tier: a bad value is a mistake even where it has no effect. */
function validate(p: CpuTierParams): void {
  if (p.kvCpuBlocks < 0) throw new UserError(`--kv-cpu-blocks must be >= 0, got ${p.kvCpuBlocks}`);
  if (!Number.isFinite(p.kvOffloadThreshold) || p.kvOffloadThreshold < 0 || p.kvOffloadThreshold > 1) {
    throw new UserError(`--kv-offload-threshold must be a finite value in [0, 1], got ${p.kvOffloadThreshold}`);
  }
  if (!Number.isFinite(p.kvTransferBandwidth) || p.kvTransferBandwidth <= 0) {
    throw new UserError(`--kv-transfer-bandwidth must be a finite value > 0, got ${p.kvTransferBandwidth}`);
  }
  if (p.kvTransferBaseLatency < 0) {
    throw new UserError(`--kv-transfer-base-latency must be >= 0, got ${p.kvTransferBaseLatency}`);
  }
}

export const kvCpuTier: Feature<CpuTierParams, CpuTierSettings> = {
  name: "kv-cpu-tier",
  description: "a CPU tier below every instance's GPU KV blocks: offload of freed cached blocks, reloads on hits",
  params,
  flags: [
    {
      key: "kvCpuBlocks",
      flag: "--kv-cpu-blocks",
      type: "int64",
      group: "kv",
      help: "CPU-tier KV blocks; 0 = single tier",
    },
    {
      key: "kvOffloadThreshold",
      flag: "--kv-offload-threshold",
      type: "float",
      group: "kv",
      help: "GPU utilization above which freed cached blocks move to the CPU tier",
    },
    {
      key: "kvTransferBandwidth",
      flag: "--kv-transfer-bandwidth",
      type: "float",
      shown: "100.0", // BLIS's spelling
      group: "kv",
      help: "CPU→GPU reload bandwidth; each block costs ceil(block size / this) ticks (tokens per tick, despite BLIS's 'blocks per tick')",
    },
    {
      key: "kvTransferBaseLatency",
      flag: "--kv-transfer-base-latency",
      type: "int64",
      group: "kv",
      help: "fixed ticks per reloaded block",
    },
  ],
  validate,
  settings: (p) =>
    p.kvCpuBlocks > 0
      ? {
          cpuBlocks: p.kvCpuBlocks,
          offloadThreshold: p.kvOffloadThreshold,
          transferBandwidth: p.kvTransferBandwidth,
          transferBaseLatency: p.kvTransferBaseLatency,
        }
      : null,
  start: (tier) => ({ extension: null, kvStore: (gpu, log) => createKvStore(gpu, tier, log) }),
};

// Automatic KV capacity and max-model-len for the current analytical backends
// (docs/latency.md "KV capacity" and "Max model length"): logging and flag handling around the
// pure calculations in src/latency.

import type { ArchConfig } from "../archConfig.js";
import type { HardwareCalib } from "../hardwareConfig.js";
import { autoKvBlocks } from "../kvCapacity.js";
import { capMaxModelLenToKv, deriveMaxModelLen } from "../maxModelLen.js";
import type { Logger } from "../../util/log.js";
import type { LatencyRequest } from "./backend.js";

function emit(log: Logger, level: "info" | "warn", text: string): void {
  if (level === "warn") log.warn(text);
  else log.info(text);
}

/** Blocks per instance derived from GPU memory, or the flag default when the model gives too little to go on. */
export function deriveKvBlocks(req: LatencyRequest, arch: ArchConfig, hw: HardwareCalib, tp: number): number {
  const res = autoKvBlocks(
    arch,
    {
      memoryGiB: hw.memoryGiB,
      tp,
      dp: req.dp,
      gpuMemoryUtilization: req.gpuMemoryUtilization,
      blockSize: req.blockSize,
      ...(req.loraReservedBytes !== undefined ? { loraReservedBytes: req.loraReservedBytes } : {}),
    },
    req.model,
    req.defaultKvBlocks,
  );
  for (const m of res.messages) emit(req.log, m.level, m.text);
  return res.blocks;
}

/** The explicit or derived max-model-len, capped by the KV capacity; 0 = unlimited. */
export function deriveModelLen(req: LatencyRequest, arch: ArchConfig, blocks: number): number {
  let mml = req.maxModelLen ?? 0;
  if (req.maxModelLen === null) {
    const derived = deriveMaxModelLen(arch);
    for (const i of derived.infos) req.log.info(i);
    for (const w of derived.warnings) req.log.warn(w);
    mml = derived.value;
  }
  if (mml <= 0) return 0;
  const capped = capMaxModelLenToKv(mml, blocks, req.blockSize);
  if (capped.warning !== null) req.log.warn(capped.warning);
  return capped.value;
}

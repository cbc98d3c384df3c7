// Whether a GPU at a TP degree can run the model at all, found by resolving its latency backend
// exactly as a run would: no latency data for the GPU, weights that do not fit, a TP the heads
// do not split over. The resolved step-time model also feeds the capacity bound.

import type { RunInput } from "../config/runOptions.js";
import { resolveLatencyBackend } from "../latency/backends/resolve.js";
import type { LatencyModel } from "../latency/model.js";
import { parseRunInput } from "../sim/parseOptions.js";
import { UserError } from "../util/errors.js";
import { silentLogger } from "../util/log.js";

export type ProbeResult =
  | { ok: true; model: LatencyModel; kvBlocks: number; blockSize: number; backend: string }
  | { ok: false; kind: "no-latency-data" | "does-not-fit" | "invalid-tp" | "not-runnable"; reason: string };

function classify(message: string): Exclude<ProbeResult, { ok: true }>["kind"] {
  if (/not found in hardware config|unknown GPU|no .* for GPU|has no kernel tables/i.test(message))
    return "no-latency-data";
  if (/exceeds available GPU memory|insufficient per-GPU capacity|Minimum GPUs required/i.test(message))
    return "does-not-fit";
  if (/--tp \d+ is not valid/.test(message)) return "invalid-tp";
  return "not-runnable";
}

/** Resolves the latency backend of `base` on `gpu` at `tp`; a user error becomes the reason it cannot run. */
export async function probeGpu(base: RunInput, gpu: string, tp: number): Promise<ProbeResult> {
  try {
    const { o, explicit } = parseRunInput({ ...base, hardware: gpu, tp }, silentLogger);
    const lat = await resolveLatencyBackend(o, explicit, silentLogger);
    return {
      ok: true,
      model: lat.build(),
      kvBlocks: lat.totalKvBlocks,
      blockSize: o.blockSizeInTokens,
      backend: lat.backend,
    };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const reason = e.message.replace(/^Failed to load hardware config: /, "");
    return { ok: false, kind: classify(reason), reason };
  }
}

/** Probes each (GPU, TP) pair once. Keys are `gpu/tp`. */
export async function probeAll(
  base: RunInput,
  gpus: readonly string[],
  tps: readonly number[],
): Promise<Map<string, ProbeResult>> {
  const out = new Map<string, ProbeResult>();
  for (const g of gpus) for (const t of tps) out.set(`${g}/${t}`, await probeGpu(base, g, t));
  return out;
}

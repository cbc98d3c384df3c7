// Shared helpers of the kernels-model tests: the converted tables read straight from data/kernels,
// models resolved the way a run resolves them, and step views of prefill chunks and decodes.

import fs from "node:fs";
import path from "node:path";
import type { RunInput } from "../../../src/config/runOptions.js";
import type { ResolvedLatency } from "../../../src/latency/backends/backend.js";
import { resolveLatencyBackend } from "../../../src/latency/backends/resolve.js";
import type { Extrapolations } from "../../../src/latency/kernels/gemm.js";
import type { KernelTables } from "../../../src/latency/kernels/tables.js";
import type { StepRequestView } from "../../../src/latency/model.js";
import { parseRunInput } from "../../../src/sim/parseOptions.js";
import { Logger } from "../../../src/util/log.js";
import { DATA_DIR } from "../helpers.js";

export const LLAMA_8B = "meta-llama/llama-3.1-8b-instruct";
export const LLAMA_70B = "meta-llama/llama-3.1-70b-instruct";
export const MIXTRAL = "mistralai/mixtral-8x7b-v0.1";

/** The GPUs of the kernel tables, as `--hardware` names them (A100-80 is an alias of A100-SXM). */
export const GPUS = ["H100", "H200", "B200", "A100-SXM", "L40S", "RTX-PRO-6000"] as const;

const GPU_FOLDERS: Record<string, string> = {
  H100: "h100_sxm",
  H200: "h200_sxm",
  B200: "b200_sxm",
  "A100-SXM": "a100_sxm",
  L40S: "l40s",
  "RTX-PRO-6000": "rtx_pro_6000_server",
};

const parsed = new Map<string, KernelTables>();

/** A converted kernel table file, parsed here (not through the simulator's loader). */
export function readTables(gpu: string, version: string): KernelTables {
  const file = path.join(DATA_DIR, "kernels", GPU_FOLDERS[gpu]!, `${version}.json`);
  let t = parsed.get(file);
  if (t === undefined) {
    t = JSON.parse(fs.readFileSync(file, "utf8")) as KernelTables;
    parsed.set(file, t);
  }
  return t;
}

/** Records the notes a composition makes (both kinds), for assertions. */
export function recordingNotes(): Extrapolations & { said: string[] } {
  const said: string[] = [];
  return { said, add: (d) => said.push(d), lazy: (d) => () => said.push(d) };
}

export interface Resolved {
  r: ResolvedLatency;
  warnings: string[];
}

/** The kernels backend resolved for a deployment, as `blis run --latency-model kernels` resolves it. */
export async function resolveKernels(
  model: string,
  hardware: string,
  tp: number,
  extra: RunInput = {},
): Promise<Resolved> {
  const warnings: string[] = [];
  const logger = new Logger("warn", (l) => warnings.push(l));
  const { o, explicit, log } = parseRunInput({ model, hardware, tp, latencyModel: "kernels", ...extra }, logger);
  const r = await resolveLatencyBackend(o, explicit, log);
  return { r, warnings };
}

/** A prefill chunk of n tokens after `cached` prompt tokens already in the KV cache. */
export function chunk(cached: number, n: number, inputLen = cached + n): StepRequestView {
  return { pi: cached, inputLen, outputLen: 16, numNewTokens: n, computed: cached + n };
}

/** One decode token of a request whose KV holds `context` tokens. */
export function decode(context: number): StepRequestView {
  return { pi: context, inputLen: Math.min(context, 128), outputLen: context + 64, numNewTokens: 1 };
}

/** `count` decodes at the same context. */
export function decodes(count: number, context: number): StepRequestView[] {
  return Array.from({ length: count }, () => decode(context));
}

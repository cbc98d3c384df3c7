// The converted kernel tables (data/kernels/, made by scripts/convertKernels.mjs from the
// measured vLLM kernel database; docs/latency.md "Kernel tables") and the GPUs they cover.

import path from "node:path";
import { readInputFile, SPEC_FILE_LIMIT } from "../../util/inputFile.js";
import { UserError } from "../../util/errors.js";

/** Latencies in µs per call; `null` where the grid point was not measured. */
export interface GemmGrid {
  m: number[];
  n: number[];
  k: number[];
  us: (number | null)[];
}

export interface CurveData {
  x: number[];
  us: number[];
}

/** Per attention shape "heads/kvHeads/headDim", one curve per batch size. */
export type AttentionTable = Record<string, Record<string, CurveData>>;

export interface KernelTables {
  gpu: string;
  version: string;
  device: string;
  /** The vLLM version each family was measured in (the nearest one with a table). */
  sources: Record<string, string>;
  gemm: Record<string, GemmGrid>;
  context: AttentionTable;
  generation: AttentionTable;
  /** Key "dtype/hidden/inter/topk/experts/tp/ep" → curve over tokens. */
  moe: Record<string, CurveData>;
  /** Key "vllm_graph/N" or "vllm_eager/N" → curve over message size in elements. */
  allreduce: Record<string, CurveData>;
}

export interface GpuSystem {
  mem_bw_bytes_per_s: number;
  mem_capacity_bytes: number;
  bf16_flops: number;
  fp8_flops: number;
  intra_node_bw_bytes_per_s: number;
  nccl_mem_bytes: Record<string, number>;
  versions: string[];
}

/** `--hardware` names → kernel database folders. A100-80 is the seed data's name of the A100 SXM. */
const GPU_DIRS: Readonly<Record<string, string>> = {
  H100: "h100_sxm",
  H200: "h200_sxm",
  B200: "b200_sxm",
  "A100-SXM": "a100_sxm",
  "A100-80": "a100_sxm",
  L40S: "l40s",
  "RTX-PRO-6000": "rtx_pro_6000_server",
};

/** The GPUs the kernel tables cover, as `--hardware` spells them. */
export const KERNEL_GPUS: readonly string[] = Object.keys(GPU_DIRS);

export function kernelDir(root: string): string {
  return path.join(root, "kernels");
}

export function gpuDir(gpu: string): string | undefined {
  return GPU_DIRS[gpu];
}

const systemsCache = new Map<string, Record<string, GpuSystem>>();
const tableCache = new Map<string, KernelTables>();

function readJson<T>(file: string): T {
  return JSON.parse(readInputFile(file, SPEC_FILE_LIMIT)) as T;
}

export function loadSystems(dataDir: string): Record<string, GpuSystem> {
  const file = path.join(kernelDir(dataDir), "systems.json");
  let s = systemsCache.get(file);
  if (s === undefined) {
    s = readJson<Record<string, GpuSystem>>(file);
    systemsCache.set(file, s);
  }
  return s;
}

export function gpuSystem(dataDir: string, gpu: string): GpuSystem {
  const dir = gpuDir(gpu);
  const sys = dir === undefined ? undefined : loadSystems(dataDir)[dir];
  if (sys === undefined) {
    throw new UserError(
      `--latency-model kernels: no kernel tables for GPU "${gpu}" (valid: ${KERNEL_GPUS.join(", ")})`,
    );
  }
  return sys;
}

const versionNumber = (v: string): number => {
  const [a = 0, b = 0, c = 0] = v.split(".").map((x) => Number.parseInt(x, 10) || 0);
  return a * 1e6 + b * 1e3 + c;
};

/** The measured version nearest to `wanted` ("" = the oldest, the one closest to the calibration runs). */
export function nearestVersion(versions: readonly string[], wanted: string): string {
  if (wanted === "") return versions[0]!;
  const w = versionNumber(wanted);
  let best = versions[0]!;
  for (const v of versions) if (Math.abs(versionNumber(v) - w) < Math.abs(versionNumber(best) - w)) best = v;
  return best;
}

export function loadTables(dataDir: string, gpu: string, version: string): KernelTables {
  const file = path.join(kernelDir(dataDir), gpuDir(gpu)!, `${version}.json`);
  let t = tableCache.get(file);
  if (t === undefined) {
    t = readJson<KernelTables>(file);
    tableCache.set(file, t);
  }
  return t;
}

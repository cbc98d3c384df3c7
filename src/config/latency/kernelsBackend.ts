// Step times composed from measured GPU kernels (docs/latency.md "Kernels").

import type { HardwareCalib } from "../../latency/hardwareConfig.js";
import { loadKernelCoefficients, type KernelCoefficients } from "../../latency/kernels/coefficients.js";
import { KernelLatencyModel, TokenCostCache } from "../../latency/kernels/kernelModel.js";
import { buildLayerCosts } from "../../latency/kernels/layers.js";
import { gpuSystem, loadTables, nearestVersion, type GpuSystem } from "../../latency/kernels/tables.js";
import { UserError } from "../../util/errors.js";
import { BUNDLED_DATA_DIR, BUNDLED_KERNEL_OVERHEADS } from "../paths.js";
import { resolveAnalytical } from "./analytical.js";
import type { LatencyBackend, LatencyRequest } from "./backend.js";
import { checkCoefficientFlags } from "./select.js";
import { peaksOf } from "./trainedPhysicsBackend.js";
import { extrapolationNotes } from "./kernelsNotes.js";

/** The GPU as the analytical resolution sees it: peak figures and memory from the kernel database. */
export function hardwareFromSystem(sys: GpuSystem): HardwareCalib {
  return {
    tFlopsPeak: sys.bf16_flops / 1e12,
    tFlopsFP8: sys.fp8_flops / 1e12,
    bwPeakTBs: sys.mem_bw_bytes_per_s / 1e12,
    bwEffConstant: 0,
    tOverheadMicros: 0,
    perLayerOverhead: 0,
    mfuPrefill: 0,
    mfuDecode: 0,
    allReduceLatency: 0,
    memoryGiB: sys.mem_capacity_bytes / 2 ** 30,
  };
}

/** Flags, else `--latency-coeffs`, else the bundled overheads. */
function coefficients(req: LatencyRequest): KernelCoefficients {
  checkCoefficientFlags(req.alpha, req.beta);
  if (req.alpha !== null && req.beta !== null) {
    if (req.alpha.length !== 3 || req.beta.length !== 4) {
      throw new UserError(
        `--latency-model kernels takes 3 --alpha-coeffs (queueing, post-decode, per output token µs) and 4 --beta-coeffs ` +
          `(step_us, layer_us, request_us, token_us); got ${req.alpha.length} and ${req.beta.length}`,
      );
    }
    return { alpha_coeffs: [...req.alpha], beta_coeffs: [...req.beta] };
  }
  if (req.latencyCoeffs !== "") return loadKernelCoefficients(req.latencyCoeffs);
  return loadKernelCoefficients(BUNDLED_KERNEL_OVERHEADS, "bundled kernels overheads");
}

export const kernelsBackend: LatencyBackend = {
  name: "kernels",
  summary: "measured vLLM kernel latencies (GEMM, attention, MoE, all-reduce) composed per step, plus fitted overheads",
  listed: true,
  async resolve(req) {
    const c = coefficients(req);
    const s = await resolveAnalytical(req, "kernels", true, (gpu) => hardwareFromSystem(gpuSystem(BUNDLED_DATA_DIR, gpu)));
    const sys = gpuSystem(BUNDLED_DATA_DIR, s.hardware);
    const version = nearestVersion(sys.versions, req.vllmVersion);
    const tables = loadTables(BUNDLED_DATA_DIR, s.hardware, version);
    const notes = extrapolationNotes(req.log, `${s.hardware} vLLM ${version}`);
    const costs = buildLayerCosts(tables, sys, s.arch, s.tp, notes);
    const cache = new TokenCostCache(costs);
    const params = { alpha: c.alpha_coeffs, beta: c.beta_coeffs };
    return {
      backend: "kernels",
      hardware: s.hardware,
      tp: s.tp,
      alpha: c.alpha_coeffs,
      beta: c.beta_coeffs,
      totalKvBlocks: s.totalKvBlocks,
      maxModelLen: s.maxModelLen,
      build: () => new KernelLatencyModel(cache, params),
      bounds: { arch: s.arch, peaks: peaksOf(s.hw, s.arch), gpus: s.tp },
      withCoefficients: (k) => () => new KernelLatencyModel(cache, { alpha: k.alpha, beta: k.beta }),
    };
  },
};

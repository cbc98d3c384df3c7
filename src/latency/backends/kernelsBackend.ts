// Step times composed from measured GPU kernels (docs/latency.md "Kernels").

import type { HardwareCalib } from "../hardwareConfig.js";
import { loadKernelCoefficients, type KernelCoefficients } from "../kernels/coefficients.js";
import { KernelLatencyModel, TokenCostCache } from "../kernels/kernelModel.js";
import { buildLayerCosts } from "../kernels/layers.js";
import { gpuDir, gpuSystem, KERNEL_GPUS, loadTables, nearestVersion, type GpuSystem } from "../kernels/tables.js";
import { hardwareNames } from "../hardwareConfig.js";
import { UserError } from "../../util/errors.js";
import { BUNDLED_DATA_DIR, BUNDLED_DEFAULTS, BUNDLED_HARDWARE_V2, BUNDLED_KERNEL_OVERHEADS } from "../../util/paths.js";
import {
  currentModelDefault,
  defaultsFileHasTrainedPhysics,
  resolveAnalytical,
  type AnalyticalSetup,
} from "./analytical.js";
import { ModelConfigNotBundled } from "../modelConfig.js";
import { hasKernelCoefficients } from "../kernels/coefficients.js";
import type { LatencyBackend, LatencyRequest } from "./backend.js";
import { checkCoefficientFlags } from "./select.js";
import { peaksOf, trainedPhysicsBackend } from "./trainedPhysicsBackend.js";
import { extrapolationNotes } from "./kernelsNotes.js";
import { sourceName } from "./coefficientNote.js";

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

/** Where the kernels model's overhead terms come from: flags, else `--latency-coeffs`, else the bundled file. */
function coefficientSource(req: LatencyRequest): string {
  if (req.alpha !== null && req.beta !== null) return "--alpha-coeffs/--beta-coeffs";
  return req.latencyCoeffs !== "" ? `--latency-coeffs ${req.latencyCoeffs}` : sourceName(BUNDLED_KERNEL_OVERHEADS);
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

/**
 * Why a run that chose no latency model cannot use the kernels model (then it runs trained-physics,
 * docs/latency.md "Choosing a backend"), or null when it can: a GPU without kernel tables, a
 * hardware file, a coefficient file or defaults file of trained-physics, or data/expert parallelism.
 */
function defaultBlocker(req: LatencyRequest): string | null {
  if (req.hardwareConfig !== "") return "--hardware-config";
  const gpu = req.hardware !== "" ? req.hardware : (currentModelDefault(req)?.GPU ?? "");
  if (gpu !== "" && gpuDir(gpu) === undefined) {
    const known = hardwareNames(BUNDLED_HARDWARE_V2);
    if (!known.includes(gpu)) {
      throw new UserError(
        `GPU "${gpu}" has no kernel tables (${KERNEL_GPUS.join(", ")}) and no entry in the bundled hardware file (${known.join(", ")})`,
      );
    }
    return `no kernel tables for ${gpu}`;
  }
  if (req.latencyCoeffs !== "" && !hasKernelCoefficients(req.latencyCoeffs))
    return "--latency-coeffs holds trained-physics coefficients";
  if (defaultsFileHasTrainedPhysics(req.defaultsFilepath) && req.defaultsFilepath !== BUNDLED_DEFAULTS) {
    return "--defaults-filepath holds trained-physics coefficients";
  }
  if (req.dp > 1 || req.enableExpertParallel || req.moeCommBackend !== "") return "data or expert parallelism";
  return null;
}

export const kernelsBackend: LatencyBackend = {
  name: "kernels",
  summary: "measured vLLM kernel latencies (GEMM, attention, MoE, all-reduce) composed per step, plus fitted overheads",
  listed: true,
  async resolve(req) {
    if (req.implicit && defaultBlocker(req) !== null) return trainedPhysicsBackend.resolve(req, {});
    if (req.dp > 1 || req.enableExpertParallel) {
      throw new UserError(
        "--dp > 1 and --enable-expert-parallel need --latency-model trained-physics (the kernel tables hold no all-to-all)",
      );
    }
    const c = coefficients(req);
    let s: AnalyticalSetup;
    try {
      s = await resolveAnalytical(req, "kernels", !req.implicit, (gpu) =>
        hardwareFromSystem(gpuSystem(BUNDLED_DATA_DIR, gpu)),
      );
    } catch (e) {
      // The default for a model without a bundled config: trained-physics' own fallbacks apply.
      if (req.implicit && e instanceof ModelConfigNotBundled) return trainedPhysicsBackend.resolve(req, {});
      throw e;
    }
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
      coefficientSource: `${coefficientSource(req)}, kernel tables vLLM ${version}`,
      totalKvBlocks: s.totalKvBlocks,
      maxModelLen: s.maxModelLen,
      build: () => new KernelLatencyModel(cache, params),
      bounds: { arch: s.arch, peaks: peaksOf(s.hw, s.arch), gpus: s.tp },
      withCoefficients: (k) => () => new KernelLatencyModel(cache, { alpha: k.alpha, beta: k.beta }),
    };
  },
};

// The default backend: trained-physics step times (docs/latency.md "Trained physics").

import { loadCoefficientFile } from "../coefficientFile.js";
import { ModelConfigNotBundled } from "../modelConfig.js";
import { TrainedPhysicsLatencyModel, type ExtraTerms } from "../trainedPhysics.js";
import { UserError } from "../../util/errors.js";
import type { ArchConfig } from "../archConfig.js";
import type { HardwareCalib } from "../hardwareConfig.js";
import type { GpuPeaks } from "../physicsBounds.js";
import { silentLogger } from "../../util/log.js";
import { loadDefaultsFile } from "../defaultsFile.js";
import { BUNDLED_TRAINED_PHYSICS, BUNDLED_TRAINED_PHYSICS_CACHE } from "../../util/paths.js";
import { defaultsFileHasTrainedPhysics, resolveAnalytical, type AnalyticalSetup } from "./analytical.js";
import type { LatencyBackend, LatencyRequest, ResolvedLatency } from "./backend.js";
import { blackboxBackend } from "./blackboxBackend.js";
import { checkCoefficientFlags } from "./select.js";
import { sourceName } from "./coefficientNote.js";

/** α and β: flags, else `--latency-coeffs`, else a current-era defaults file, else the bundled set. */
function coefficients(req: LatencyRequest): { alpha: number[]; beta: number[]; extra: ExtraTerms; source: string } {
  let source = BUNDLED_TRAINED_PHYSICS;
  let file = loadCoefficientFile(
    BUNDLED_TRAINED_PHYSICS,
    "bundled coefficients",
    BUNDLED_TRAINED_PHYSICS_CACHE,
  ).trained_physics_coefficients;
  if (req.latencyCoeffs !== "") {
    source = req.latencyCoeffs;
    file = loadCoefficientFile(req.latencyCoeffs).trained_physics_coefficients;
  } else if (defaultsFileHasTrainedPhysics(req.defaultsFilepath)) {
    source = req.defaultsFilepath;
    file = loadDefaultsFile(req.defaultsFilepath).trained_physics_coefficients!;
  }
  const beta = req.beta ?? file.beta_coeffs;
  const alpha = req.alpha ?? file.alpha_coeffs;
  if (req.beta === null && (beta.length < 7 || beta.every((b) => b === 0))) {
    throw new UserError(
      `--latency-model trained-physics: no trained_physics_coefficients found in ${source} and no --beta-coeffs provided. ` +
        `Add trained_physics_coefficients to defaults.yaml or provide --beta-coeffs explicitly`,
    );
  }
  if (alpha.every((a) => a === 0))
    req.log.warn("alpha coefficients are all zero: queueing and per-request overheads are 0");
  // Extra terms come with the file's betas; explicit --beta-coeffs replace the whole set.
  const extra = req.beta === null ? { ...(file.extra_terms ?? {}) } : {};
  const given =
    req.beta !== null
      ? "--alpha-coeffs/--beta-coeffs"
      : req.latencyCoeffs !== ""
        ? `--latency-coeffs ${source}`
        : sourceName(source);
  return { alpha: [...alpha], beta: [...beta], extra, source: given };
}

/** The dense peak in the weights' dtype and the HBM bandwidth, per GPU. */
export function peaksOf(hw: HardwareCalib, arch: ArchConfig): GpuPeaks {
  const fp8 = arch.weightBytes === 1 && hw.tFlopsFP8 > 0;
  return { flops: (fp8 ? hw.tFlopsFP8 : hw.tFlopsPeak) * 1e12, bandwidth: hw.bwPeakTBs * 1e12 };
}

async function setup(req: LatencyRequest): Promise<AnalyticalSetup | ResolvedLatency> {
  if (!req.implicit) return resolveAnalytical(req, "trained-physics", true);
  // The default backend: a model without a bundled config but with seed-era coefficients runs
  // on those, rather than reaching for the network (docs/latency.md "Choosing a backend").
  try {
    return await resolveAnalytical(req, "trained-physics", false);
  } catch (e) {
    if (!(e instanceof ModelConfigNotBundled)) throw e;
    try {
      // Probe quietly: the seed resolution's own warnings would be noise if it fails.
      await blackboxBackend.resolve({ ...req, log: silentLogger }, {});
      const fallback = await blackboxBackend.resolve(req, {});
      req.log.warn(
        `no bundled config.json for ${req.model}: using its blackbox coefficients (${fallback.hardware} TP${fallback.tp}); ` +
          `give --model-config-folder (or --latency-model trained-physics to download it) for trained-physics`,
      );
      return fallback;
    } catch (fallbackError) {
      if (!(fallbackError instanceof UserError)) throw fallbackError;
      return resolveAnalytical(req, "trained-physics", true);
    }
  }
}

export const trainedPhysicsBackend: LatencyBackend = {
  name: "trained-physics",
  summary: "roofline-shaped basis functions scaled by coefficients fitted on vLLM 0.15 (default; MoE, DP/EP, FP8)",
  listed: true,
  async resolve(req) {
    checkCoefficientFlags(req.alpha, req.beta);
    if (req.alpha !== null && req.latencyCoeffs !== "") {
      req.log.info("--alpha-coeffs/--beta-coeffs override the --latency-coeffs file");
    }
    const s = await setup(req);
    if ("build" in s) return s;
    const { alpha, beta, extra, source } = coefficients(req);
    const params = { alpha, beta, extra, tp: s.tp, dp: req.dp, moeCommBackend: req.moeCommBackend };
    return {
      backend: "trained-physics",
      hardware: s.hardware,
      tp: s.tp,
      alpha,
      beta,
      coefficientSource: source,
      totalKvBlocks: s.totalKvBlocks,
      maxModelLen: s.maxModelLen,
      build: () => new TrainedPhysicsLatencyModel(s.arch, s.hw, params),
      bounds: { arch: s.arch, peaks: peaksOf(s.hw, s.arch), gpus: s.tp * req.dp },
      withCoefficients: (c) => {
        const p = { ...params, alpha: [...c.alpha], beta: [...c.beta], extra: { ...(c.extra ?? {}) } };
        return () => new TrainedPhysicsLatencyModel(s.arch, s.hw, p);
      },
    };
  },
};

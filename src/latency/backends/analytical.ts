// Resolution shared by the current analytical backends, trained-physics and roofline
// (docs/latency.md "Resolution (trained-physics and roofline)"): model defaults, config.json, the GPU entry,
// data-parallel and
// expert-parallel checks, automatic KV capacity and max-model-len.

import fs from "node:fs";
import path from "node:path";
import { parseArchConfig, isMoe, type ArchConfig } from "../archConfig.js";
import { loadCoefficientFile } from "../coefficientFile.js";
import { loadHardwareConfig, type HardwareCalib } from "../hardwareConfig.js";
import { resolveModelConfig } from "../modelConfig.js";
import { MOE_COMM_BACKENDS } from "../trainedPhysics.js";
import { deriveKvBlocks, deriveModelLen } from "./capacity.js";
import { UserError } from "../../util/errors.js";
import { loadDefaultsFile } from "../defaultsFile.js";
import { BUNDLED_HARDWARE_V2, BUNDLED_TRAINED_PHYSICS, BUNDLED_TRAINED_PHYSICS_CACHE } from "../../util/paths.js";
import type { LatencyRequest } from "./backend.js";

export interface AnalyticalSetup {
  arch: ArchConfig;
  hw: HardwareCalib;
  hardware: string;
  tp: number;
  totalKvBlocks: number;
  maxModelLen: number;
}

interface ModelDefault {
  GPU: string;
  tensor_parallelism: number;
  hf_repo?: string | undefined;
}

/** True when the defaults file carries current-era data (then its `defaults` map is current too). */
export function defaultsFileHasTrainedPhysics(file: string): boolean {
  return fs.existsSync(file) && loadDefaultsFile(file).trained_physics_coefficients !== undefined;
}

/**
 * The model's default GPU and TP for the current backends: a `--latency-coeffs` file's map, a
 * current-era defaults file, the bundled current map, then a seed-era defaults file.
 */
export function currentModelDefault(req: LatencyRequest): ModelDefault | undefined {
  const maps: (Record<string, ModelDefault> | undefined)[] = [];
  if (req.latencyCoeffs !== "") maps.push(loadCoefficientFile(req.latencyCoeffs).defaults);
  const defaultsExists = fs.existsSync(req.defaultsFilepath);
  if (defaultsExists && defaultsFileHasTrainedPhysics(req.defaultsFilepath))
    maps.push(loadDefaultsFile(req.defaultsFilepath).defaults);
  maps.push(
    loadCoefficientFile(BUNDLED_TRAINED_PHYSICS, "bundled coefficients", BUNDLED_TRAINED_PHYSICS_CACHE).defaults,
  );
  if (defaultsExists) maps.push(loadDefaultsFile(req.defaultsFilepath).defaults);
  for (const m of maps) {
    const hit = m?.[req.model];
    if (hit !== undefined) return hit;
  }
  // A model known only by its blackbox coefficients: the first deployment they were fitted on.
  const fitted = defaultsExists
    ? loadDefaultsFile(req.defaultsFilepath).models?.find((m) => m.id === req.model)
    : undefined;
  return fitted === undefined ? undefined : { GPU: fitted.GPU, tensor_parallelism: fitted.tensor_parallelism };
}

function fillDefaults(req: LatencyRequest, backend: string): { hardware: string; tp: number; hfRepo: string } {
  const def = currentModelDefault(req);
  let { hardware, tp } = req;
  if (tp <= 0 && def !== undefined) {
    tp = def.tensor_parallelism;
    req.log.info(`Using default tp=${tp} for ${req.model}`);
  }
  if (hardware === "" && def !== undefined) {
    hardware = def.GPU;
    req.log.info(`Using default GPU ${hardware} for ${req.model}`);
  }
  const missing = [hardware === "" ? "--hardware" : "", tp <= 0 ? "--tp" : ""].filter((x) => x !== "");
  if (missing.length > 0) {
    const what = missing.join(" and ");
    if (req.implicit && def === undefined) {
      throw new UserError(
        `unknown model ${req.model}: no defaults for it in the bundled data; give --hardware and --tp ` +
          `(and --model-config-folder unless its config.json is bundled), or run \`blis models\` to list the known models`,
      );
    }
    if (backend === "roofline") {
      throw new UserError(
        `Roofline mode requires ${what}. No defaults found in defaults.yaml for model=${req.model}. ` +
          `Provide these flags explicitly, or use --latency-model trained-physics for coefficient-based estimation`,
      );
    }
    throw new UserError(
      `--latency-model ${backend} requires ${what}. No defaults found in defaults.yaml for model=${req.model}. Provide these flags explicitly`,
    );
  }
  return { hardware, tp, hfRepo: def?.hf_repo ?? "" };
}

function checkParallelism(req: LatencyRequest, arch: ArchConfig, backend: string): void {
  if (req.dp < 1) throw new UserError(`--dp must be >= 1, got ${req.dp}`);
  if ((req.dp > 1 || req.enableExpertParallel) && backend !== "trained-physics") {
    throw new UserError(
      `--dp > 1 and --enable-expert-parallel require --latency-model trained-physics (got --dp=${req.dp}, ` +
        `--enable-expert-parallel=${req.enableExpertParallel}, --latency-model ${backend}). The roofline backend is DP/EP-blind for step time.`,
    );
  }
  if (req.dp > 1 && !isMoe(arch)) {
    throw new UserError(
      `--dp > 1 is only supported for MoE models (got --dp=${req.dp} for a dense model). ` +
        `For replicas of a dense model the BLIS equivalent is --num-instances (router replicas), not --dp.`,
    );
  }
  if (req.enableExpertParallel && !isMoe(arch)) {
    throw new UserError(
      `--enable-expert-parallel requires a MoE model (got dense model "${req.model}" with no experts); vLLM fatally rejects this configuration.`,
    );
  }
  if (req.moeCommBackend !== "") {
    if (!(MOE_COMM_BACKENDS as readonly string[]).includes(req.moeCommBackend)) {
      throw new UserError(
        `--moe-comm-backend "${req.moeCommBackend}" is not a recognized vLLM MoE all-to-all backend (valid: ${MOE_COMM_BACKENDS.join(", ")})`,
      );
    }
    if (backend === "roofline") throw new UserError("--moe-comm-backend requires --latency-model trained-physics");
    if (!isMoe(arch) || req.dp <= 1) {
      req.log.warn(`--moe-comm-backend ${req.moeCommBackend} has no effect: it applies to MoE models with --dp > 1`);
    }
  }
}

/** The TP degrees both head counts split into evenly: the divisors of their greatest common divisor. */
export function validTpDegrees(arch: { numHeads: number; numKvHeads: number }): number[] {
  let a = arch.numHeads;
  let b = arch.numKvHeads;
  while (b > 0) [a, b] = [b, a % b];
  const out: number[] = [];
  for (let t = 1; t <= a; t++) if (a % t === 0) out.push(t);
  return out;
}

/**
 * Every GPU of a TP group holds whole attention and KV heads, so TP must divide both counts (which
 * also rules out TP beyond them). Shared by the backends that read a model architecture; BLIS
 * checks it for trained-physics only (docs/latency.md "Resolution (trained-physics and roofline)").
 */
export function checkTpSplit(model: string, heads: number, kvHeads: number, tp: number): void {
  // A config without head counts fails at model construction with its own message.
  if (!(heads > 0 && kvHeads > 0 && tp > 0)) return;
  if (heads % tp === 0 && kvHeads % tp === 0) return;
  throw new UserError(
    `--tp ${tp} is not valid for ${model}: its ${heads} attention heads and ${kvHeads} KV heads ` +
      `must split evenly over the GPUs; valid: ${validTpDegrees({ numHeads: heads, numKvHeads: kvHeads }).join(", ")}`,
  );
}

/**
 * Steps 5–10 of the resolution for one of the current analytical backends. `hardwareOf` replaces
 * the GPU table (the kernels backend takes its GPU figures from the kernel database).
 */
export async function resolveAnalytical(
  req: LatencyRequest,
  backend: string,
  allowDownload: boolean,
  hardwareOf?: (gpu: string) => HardwareCalib,
): Promise<AnalyticalSetup> {
  const { hardware, tp, hfRepo } = fillDefaults(req, backend);
  const resolved = await resolveModelConfig({
    model: req.model,
    modelConfigFolder: req.modelConfigFolder,
    defaultsDir: path.dirname(req.defaultsFilepath),
    hfRepo,
    logger: req.log,
    allowDownload,
    ...(req.fetchImpl ? { fetchImpl: req.fetchImpl } : {}),
  });
  const arch = parseArchConfig(resolved.text, req.model, resolved.path, resolved.exactName);
  const hwPath = req.hardwareConfig !== "" ? req.hardwareConfig : BUNDLED_HARDWARE_V2;
  const hw = hardwareOf !== undefined ? hardwareOf(hardware) : loadHardwareConfig(hwPath, hardware);
  checkParallelism(req, arch, backend);
  if (arch.kvLoraRank > 0) {
    req.log.warn(
      `--latency-model: MLA model detected (kv_lora_rank=${arch.kvLoraRank}); step times use standard attention and are pessimistic`,
    );
  }
  checkTpSplit(req.model, arch.numHeads, arch.numKvHeads, tp);
  const totalKvBlocks = req.totalKvBlocks ?? deriveKvBlocks(req, arch, hw, tp);
  const maxModelLen = deriveModelLen(req, arch, totalKvBlocks);
  return { arch, hw, hardware, tp, totalKvBlocks, maxModelLen };
}

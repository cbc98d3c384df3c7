// Loading everything a roofline latency model needs (the seed roofline of `--roofline`,
// docs/behavior.md#q21; config lookup as in docs/latency.md "Resolution (trained-physics and roofline)").

import { join } from "node:path";
import type { Logger } from "../util/log.js";
import { loadHardwareConfig, type HardwareCalib } from "./hardwareConfig.js";
import {
  modelConfigWarnings,
  resolveModelConfig,
  type FetchLike,
  type ModelConfigOrigin,
  type ParsedModelConfig,
} from "./modelConfig.js";
import { RooflineLatencyModel } from "./roofline.js";

export interface RooflineResolveOptions {
  /** `--model`, already lower-cased, e.g. "meta-llama/llama-3.1-8b-instruct". */
  model: string;
  /** `--hardware`: GPU name, matched exactly against the hardware config's keys. */
  hardware: string;
  /** `--tp`. Checked (> 0) only when the model is built. */
  tp: number;
  /** `--model-config-folder` (folder holding config.json), if given. */
  modelConfigFolder?: string;
  /** `--hardware-config` (a JSON file), if given; default `<defaultsDir>/hardware_config.json`. */
  hardwareConfigPath?: string;
  /** Directory of the defaults file (`--defaults-filepath`); holds model_configs/ and hardware_config.json. */
  defaultsDir: string;
  /** `defaults.<model>.hf_repo` from the defaults file, if any (hub repository to download from). */
  hfRepo?: string;
  /** Resolved alpha coefficients (flags or defaults.yaml); validated when the model is built. */
  alpha: readonly number[];
  logger: Logger;
  /** Replaces the global fetch for the hub download (tests). */
  fetchImpl?: FetchLike;
  /** Environment for HF_TOKEN (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Hub download timeout in ms (default 10 s). */
  timeoutMs?: number;
}

export interface RooflineInputs {
  modelConfig: ParsedModelConfig;
  /** The config.json used and where it came from. */
  modelConfigPath: string;
  modelConfigFolder: string;
  modelConfigOrigin: ModelConfigOrigin;
  hardware: HardwareCalib;
  hardwareConfigPath: string;
}

/**
 * Loads the model config (explicit folder → bundled copy → Hugging Face hub, see
 * resolveModelConfig) and the hardware entry for `opts.hardware`, then logs the quantization and
 * mixture-of-experts warnings. Throws UserError (exit 1, one line): "Failed to load model
 * config: …", the "No model config for model …" download failure naming --model-config-folder,
 * or "Failed to load hardware config: …" (e.g. `GPU "X" not found in hardware config
 * (available: [A100-80 A100-SXM H100])`).
 */
export async function loadRooflineInputs(opts: RooflineResolveOptions): Promise<RooflineInputs> {
  const resolved = await resolveModelConfig({
    model: opts.model,
    modelConfigFolder: opts.modelConfigFolder,
    defaultsDir: opts.defaultsDir,
    hfRepo: opts.hfRepo,
    logger: opts.logger,
    fetchImpl: opts.fetchImpl,
    env: opts.env,
    timeoutMs: opts.timeoutMs,
  });
  const hardwareConfigPath =
    opts.hardwareConfigPath !== undefined && opts.hardwareConfigPath !== ""
      ? opts.hardwareConfigPath
      : join(opts.defaultsDir, "hardware_config.json");
  const hardware = loadHardwareConfig(hardwareConfigPath, opts.hardware);
  for (const w of modelConfigWarnings(resolved.config, opts.model)) opts.logger.warn(w);
  return {
    modelConfig: resolved.config,
    modelConfigPath: resolved.path,
    modelConfigFolder: resolved.folder,
    modelConfigOrigin: resolved.origin,
    hardware,
    hardwareConfigPath,
  };
}

/**
 * Builds the model from loaded inputs. Throws ConstructionError (BLIS's construction panic,
 * exit 2): alpha problems, "latency model: roofline requires TP > 0, got N", or
 * "latency model: invalid roofline config: A; B; …". BLIS checks these when each instance is
 * built (after workload generation), so a caller that wants that error order can call this later.
 */
export function buildRooflineModel(inputs: RooflineInputs, tp: number, alpha: readonly number[]): RooflineLatencyModel {
  return new RooflineLatencyModel(inputs.modelConfig, inputs.hardware, tp, alpha);
}

/**
 * One call for the CLI: loadRooflineInputs (UserError on failure) then buildRooflineModel
 * (ConstructionError on failure).
 *
 *   const model = await resolveRoofline({ model, hardware: "H100", tp: 2, defaultsDir,
 *                                         alpha: [a0, a1, a2], logger });
 */
export async function resolveRoofline(opts: RooflineResolveOptions): Promise<RooflineLatencyModel> {
  const inputs = await loadRooflineInputs(opts);
  return buildRooflineModel(inputs, opts.tp, opts.alpha);
}

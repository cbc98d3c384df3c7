// Bundled model configs and the current hardware file, for the current-backend latency tests.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArchConfig, type ArchConfig } from "../../src/latency/archConfig.js";
import { loadHardwareConfig, type HardwareCalib } from "../../src/latency/hardwareConfig.js";
import { DATA_DIR } from "./helpers.js";

/** data/model_configs/<folder>/config.json parsed for `model` (default: the folder name). */
export function bundledArch(folder: string, model: string = folder): ArchConfig {
  const path = join(DATA_DIR, "model_configs", folder, "config.json");
  return parseArchConfig(readFileSync(path, "utf8"), model, path);
}

/** A GPU entry of data/head/hardware_config.json. */
export function currentHardware(gpu: string): HardwareCalib {
  return loadHardwareConfig(join(DATA_DIR, "head", "hardware_config.json"), gpu);
}

export const LLAMA_8B = "llama-3.1-8b-instruct";
export const LLAMA_70B = "llama-3.1-70b-instruct";
export const MIXTRAL = "mixtral-8x7b-v0.1";
export const QWEN25_7B = "qwen2.5-7b-instruct";
export const QWEN3_MOE = "qwen3-30b-a3b";
export const SCOUT_FP8 = "llama-4-scout-17b-16e-instruct-fp8-dynamic";
export const DEEPSEEK_V2_LITE = "deepseek-v2-lite";

import fs from "node:fs";
import path from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { loadDefaultsFile, lookupCoefficients, type DefaultsFile } from "../defaultsFile.js";

export interface LatencyInputs {
  model: string;
  hardware: string;
  tp: number;
  vllmVersion: string;
  roofline: boolean;
  modelConfigFolder: string;
  hardwareConfig: string;
  defaultsFilepath: string;
  alpha: number[];
  beta: number[];
  totalKvBlocks: number;
  totalKvBlocksExplicit: boolean;
}

/** Outcome of latency-model resolution (docs/latency.md "Backends", docs/behavior.md#q20). */
export interface LatencyResolution {
  roofline: boolean;
  alpha: number[];
  beta: number[];
  totalKvBlocks: number;
  hardware: string;
  tp: number;
  vllmVersion: string;
  /** Set when roofline is active: explicit folder or "" to use the bundled/hub lookup. */
  modelConfigFolder: string;
  hardwareConfig: string;
  /** Directory of the defaults file (where model_configs/ and hardware_config.json are looked for). */
  defaultsDir: string;
  hfRepo: string;
}

const allZero = (xs: readonly number[]): boolean => xs.every((x) => x === 0);

export function resolveLatency(inp: LatencyInputs, log: Logger): LatencyResolution {
  const r: LatencyResolution = {
    roofline: inp.roofline,
    alpha: [...inp.alpha],
    beta: [...inp.beta],
    totalKvBlocks: inp.totalKvBlocks,
    hardware: inp.hardware,
    tp: inp.tp,
    vllmVersion: inp.vllmVersion,
    modelConfigFolder: inp.modelConfigFolder,
    hardwareConfig: inp.hardwareConfig,
    defaultsDir: path.dirname(inp.defaultsFilepath),
    hfRepo: "",
  };
  // 1. Explicit roofline.
  if (r.roofline) return explicitRoofline(r, inp, log);
  // 2. Blackbox lookup in defaults.yaml.
  if (allZero(r.alpha) && allZero(r.beta) && r.modelConfigFolder === "" && r.hardwareConfig === "") {
    blackboxLookup(r, inp, log);
  }
  // 3. Implicit roofline when no coefficients are known.
  if (allZero(r.alpha) && allZero(r.beta)) implicitRoofline(r, inp, log);
  return r;
}

/** --roofline: checks GPU and TP, takes alpha and the KV block count from the defaults file. */
function explicitRoofline(r: LatencyResolution, inp: LatencyInputs, log: Logger): LatencyResolution {
  const model = inp.model;
  if (r.hardware === "") throw new UserError("--roofline requires --hardware (GPU type)");
  if (r.tp <= 0) throw new UserError("--roofline requires --tp > 0");
  if (!allZero(r.beta)) log.warn("--roofline: beta coefficients are ignored (the roofline model computes step times)");
  if (r.hardwareConfig === "") r.hardwareConfig = path.join(r.defaultsDir, "hardware_config.json");
  if (!fs.existsSync(inp.defaultsFilepath)) {
    log.warn(`defaults file ${inp.defaultsFilepath} not found; roofline runs without trained alpha coefficients`);
    return r;
  }
  const d = loadDefaultsFile(inp.defaultsFilepath);
  const def = d.defaults?.[model];
  r.hfRepo = def?.hf_repo ?? "";
  if (r.vllmVersion === "" && def) r.vllmVersion = def.vllm_version ?? "";
  const hit = lookupCoefficients(d, model, r.hardware, r.tp, r.vllmVersion);
  if (hit && allZero(r.alpha)) r.alpha = [...hit.alpha_coeffs];
  if (!inp.totalKvBlocksExplicit) {
    if (hit && hit.total_kv_blocks > 0) r.totalKvBlocks = hit.total_kv_blocks;
    else log.warn(`no trained KV block count for ${model} on ${r.hardware} TP ${r.tp}; using ${r.totalKvBlocks}`);
  }
  if (allZero(r.alpha)) log.warn("alpha coefficients are all zero: queueing and output-processing overheads are 0");
  return r;
}

/** Fills GPU, TP and vLLM version from the model's defaults, then its trained coefficients. */
function blackboxLookup(r: LatencyResolution, inp: LatencyInputs, log: Logger): void {
  const model = inp.model;
  const d: DefaultsFile = loadDefaultsFile(inp.defaultsFilepath);
  const def = d.defaults?.[model];
  if (def) {
    if (r.tp === 0) {
      r.tp = def.tensor_parallelism;
      log.warn(`Using default tensor parallelism ${r.tp} for ${model}`);
    }
    if (r.hardware === "") {
      r.hardware = def.GPU;
      log.warn(`Using default GPU ${r.hardware} for ${model}`);
    }
    if (r.vllmVersion === "") {
      r.vllmVersion = def.vllm_version ?? "";
      log.warn(`Using default vLLM version ${r.vllmVersion} for ${model}`);
    }
  }
  const hit = lookupCoefficients(d, model, r.hardware, r.tp, r.vllmVersion);
  if (hit) {
    r.alpha = [...hit.alpha_coeffs];
    r.beta = [...hit.beta_coeffs];
    if (!inp.totalKvBlocksExplicit) r.totalKvBlocks = hit.total_kv_blocks;
  } else {
    r.alpha = [];
    r.beta = [];
    if (!inp.totalKvBlocksExplicit) r.totalKvBlocks = 0;
  }
}

/** No coefficients: the seed roofline when both config paths, GPU and TP are given, else an error. */
function implicitRoofline(r: LatencyResolution, inp: LatencyInputs, log: Logger): void {
  const model = inp.model;
  log.warn(`No trained coefficients for model=${model}; trying roofline approach`);
  if (r.modelConfigFolder !== "" && r.hardwareConfig !== "" && r.hardware !== "" && r.tp > 0) {
    r.roofline = true;
    // Compat (docs/behavior.md#q20): implicit roofline keeps zero alpha and the flag's block count.
    if (r.alpha.length === 0) r.alpha = [0, 0, 0];
    return;
  }
  if (r.modelConfigFolder === "") {
    const d = fs.existsSync(inp.defaultsFilepath) ? loadDefaultsFile(inp.defaultsFilepath) : {};
    throw new UserError(missingCoefficientsMessage(d, model, r.hardware, r.tp, r.vllmVersion));
  }
  if (r.hardwareConfig === "") {
    throw new UserError(`Please provide hardware config path (--hardware-config) for model=${model}`);
  }
  // Compat (docs/behavior.md#q20): both paths but no GPU or TP: an all-zero blackbox model.
  log.warn("roofline needs --hardware and --tp > 0; running with an all-zero latency model");
  if (r.alpha.length === 0) r.alpha = [0, 0, 0];
  if (r.beta.length === 0) r.beta = [0, 0, 0];
}

/** Names the combination that has no coefficients and lists the ones that exist. */
function missingCoefficientsMessage(d: DefaultsFile, model: string, gpu: string, tp: number, version: string): string {
  const entries = (d.models ?? []).filter((m) => m.id === model);
  const asked = `--hardware ${gpu || "(none)"} --tp ${tp} --vllm-version ${version || "(none)"}`;
  if (entries.length > 0) {
    const valid = entries.map((m) => `${m.GPU} TP${m.tensor_parallelism} ${m.vllm_version}`);
    return `no blackbox coefficients for model=${model} with ${asked}; valid: ${[...new Set(valid)].join(", ")}`;
  }
  const models = [...new Set((d.models ?? []).map((m) => m.id))].sort();
  return (
    `no blackbox coefficients for model=${model} (models with coefficients: ${models.join(", ")}); ` +
    `use --latency-model trained-physics or roofline, give --alpha-coeffs and --beta-coeffs, ` +
    `or --model-config-folder with --hardware and --tp for the seed roofline`
  );
}

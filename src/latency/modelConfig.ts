// HuggingFace config.json parsing and model-config resolution for the roofline model
// (docs/latency.md "Resolution (trained-physics and roofline)", "Model names"; the seed roofline:
// docs/behavior.md#q21).

import { mkdirSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { findConfigFolder } from "./modelAliases.js";
import { InputFileError, readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

/** The model shape the seed roofline model needs. All integers. */
export interface ModelConfig {
  /** n_layers (`num_hidden_layers`). */
  numLayers: number;
  /** d (`hidden_size`). */
  hiddenSize: number;
  /** H (`num_attention_heads`). */
  numHeads: number;
  /** H_kv: first non-zero of `num_key_value_heads`, `num_kv_heads`, `multi_query_group_num`; H if none. */
  numKVHeads: number;
  /** First non-zero of `intermediate_size`, `ffn_hidden_size` (0 if none; d_ff then defaults to 4·d). */
  intermediateSize: number;
  /** b: bytes per parameter from the dtype (0 for an unknown or missing dtype). */
  bytesPerParam: number;
  /** `vocab_size` (parsed, unused). */
  vocabSize: number;
}

/** A parsed config.json: the shape plus what the warnings need. */
export interface ParsedModelConfig extends ModelConfig {
  /** The dtype string the bytes per parameter came from, or null if neither key held a string. */
  dtype: string | null;
  /** The raw file text contains `"num_local_experts"` (mixture of experts, not modeled). */
  mixtureOfExperts: boolean;
}

/** Bytes per parameter for a dtype name; 0 for anything not in the table. */
export function bytesPerParamForDtype(dtype: string): number {
  switch (dtype) {
    case "float32":
      return 4;
    case "float16":
    case "bfloat16":
      return 2;
    case "int8":
    case "uint8":
    case "fp8":
    case "int4":
    case "nf4":
      return 1;
    default:
      return 0;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parses JSON text whose top level must be an object; throws Error (one line) otherwise. */
function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(oneLine((e as Error).message));
  }
  if (!isPlainObject(value)) {
    throw new Error(`expected a JSON object at the top level, got ${jsonKind(value)}`);
  }
  return value;
}

function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/** Collapses whitespace so a message stays on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Parses the text of a HuggingFace config.json: an object-valued `text_config`
 * is merged over the top level (inner values win); integers are taken only from JSON numbers
 * (truncated toward zero), any other type counts as 0; "first non-zero wins" over fallback keys.
 * Throws Error("parse HF config JSON: …") for text that is not a JSON object.
 */
export function parseModelConfig(text: string): ParsedModelConfig {
  let top: Record<string, unknown>;
  try {
    top = parseJsonObject(text);
  } catch (e) {
    throw new Error(`parse HF config JSON: ${(e as Error).message}`);
  }
  // A Map keeps keys such as "__proto__" or "constructor" as plain data.
  const raw = new Map<string, unknown>(Object.entries(top));
  const textConfig = raw.get("text_config");
  if (isPlainObject(textConfig)) {
    for (const [k, v] of Object.entries(textConfig)) raw.set(k, v);
  }

  const getInt = (key: string): number => {
    const v = raw.get(key);
    return typeof v === "number" ? Math.trunc(v) + 0 : 0;
  };
  const firstNonZero = (...keys: string[]): number => {
    for (const k of keys) {
      const v = getInt(k);
      if (v !== 0) return v;
    }
    return 0;
  };

  const numHeads = getInt("num_attention_heads");
  let numKVHeads = firstNonZero("num_key_value_heads", "num_kv_heads", "multi_query_group_num");
  if (numKVHeads === 0) numKVHeads = numHeads;

  let dtype: string | null = null;
  const torchDtype = raw.get("torch_dtype");
  const plainDtype = raw.get("dtype");
  if (typeof torchDtype === "string") dtype = torchDtype;
  else if (typeof plainDtype === "string") dtype = plainDtype;

  return {
    numLayers: getInt("num_hidden_layers"),
    hiddenSize: getInt("hidden_size"),
    numHeads,
    numKVHeads,
    intermediateSize: firstNonZero("intermediate_size", "ffn_hidden_size"),
    bytesPerParam: dtype === null ? 0 : bytesPerParamForDtype(dtype),
    vocabSize: getInt("vocab_size"),
    dtype,
    mixtureOfExperts: text.includes('"num_local_experts"'),
  };
}

/** The warnings BLIS logs for a loaded config (docs/behavior.md#q21): quantization, then MoE. */
export function modelConfigWarnings(cfg: ParsedModelConfig, model: string): string[] {
  const out: string[] = [];
  if (cfg.bytesPerParam > 0 && cfg.bytesPerParam <= 1) {
    out.push(
      `Model ${model} uses ${cfg.dtype ?? "?"} (${cfg.bytesPerParam} byte per parameter): the roofline model ` +
        `assumes unquantized compute, so step times for this quantized model may be inaccurate`,
    );
  }
  if (cfg.mixtureOfExperts) {
    out.push(
      `Model ${model} is a mixture-of-experts model: the roofline model treats it as a dense model ` +
        `with one expert-sized MLP, so step times may be inaccurate`,
    );
  }
  return out;
}

/**
 * True when `text` is a JSON object that has `num_hidden_layers` or `hidden_size` at its top
 * level or, for multimodal configs, inside an object-valued `text_config` (the check used for
 * bundled and downloaded configs, docs/latency.md "Resolution (trained-physics and roofline)").
 */
export function isUsableHFConfig(text: string): boolean {
  let top: Record<string, unknown>;
  try {
    top = parseJsonObject(text);
  } catch {
    return false;
  }
  const has = (o: Record<string, unknown>): boolean =>
    Object.prototype.hasOwnProperty.call(o, "num_hidden_layers") ||
    Object.prototype.hasOwnProperty.call(o, "hidden_size");
  if (has(top)) return true;
  const tc = top["text_config"];
  return Object.prototype.hasOwnProperty.call(top, "text_config") && isPlainObject(tc) && has(tc);
}

/** Reads and parses `<path>`; failures are fatal user errors "Failed to load model config: …". */
export function loadModelConfigFile(path: string): ParsedModelConfig {
  let text: string;
  try {
    text = readInputFile(path, SPEC_FILE_LIMIT);
  } catch (e) {
    throw new UserError(`Failed to load model config: read HF config "${path}": ${fsReason(e)}`);
  }
  try {
    return parseModelConfig(text);
  } catch (e) {
    throw new UserError(`Failed to load model config: ${path}: ${(e as Error).message}`);
  }
}

function fsReason(e: unknown): string {
  if (e instanceof InputFileError) return readFailure(e);
  const err = e as NodeJS.ErrnoException;
  if (err && err.code === "ENOENT") return "no such file or directory";
  if (err && err.code === "EACCES") return "permission denied";
  if (err && err.code === "EISDIR") return "is a directory";
  return oneLine(err?.message ?? String(e));
}

// ---------------------------------------------------------------------------------------------
// Resolution: explicit folder → bundled copy → Hugging Face hub (saved into the bundled folder).

/** The part of `fetch` the hub download uses; injectable so tests never touch the network. */
export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal: AbortSignal },
) => Promise<{ ok: boolean; status: number; statusText?: string; text(): Promise<string> }>;

export const HF_DOWNLOAD_TIMEOUT_MS = 10_000;

export interface ResolveModelConfigOptions {
  /** Model name as given (lower-cased by the CLI), e.g. "meta-llama/llama-3.1-8b-instruct". */
  model: string;
  /** `--model-config-folder`: a folder holding config.json. */
  modelConfigFolder?: string | undefined;
  /** Directory of the defaults file; holds model_configs/ and hardware_config.json. */
  defaultsDir: string;
  /** `defaults.<model>.hf_repo` from the defaults file, if any. */
  hfRepo?: string | undefined;
  logger: Logger;
  /** Replaces the global fetch (tests). */
  fetchImpl?: FetchLike | undefined;
  /** Environment to read HF_TOKEN from (default process.env). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Download timeout in milliseconds (default 10 s). */
  timeoutMs?: number | undefined;
  /** false: never download; a missing bundled config throws ModelConfigNotBundled. */
  allowDownload?: boolean | undefined;
}

/** No explicit or bundled config.json exists for the model (and downloading was not allowed). */
export class ModelConfigNotBundled extends UserError {}

export type ModelConfigOrigin = "explicit" | "bundled" | "downloaded";

export interface ResolvedModelConfig {
  config: ParsedModelConfig;
  /** The config.json text (the current backends parse more of it than ParsedModelConfig holds). */
  text: string;
  /** False when a bundled config of another spelling or an equivalent architecture was used. */
  exactName: boolean;
  /** The config.json the values came from (for "downloaded": where it was saved, or would have been). */
  path: string;
  /** The folder holding that config.json (what BLIS calls the model-config folder). */
  folder: string;
  origin: ModelConfigOrigin;
}

/** `<model name after its first "/">` (the whole name if it has no "/"). */
export function localModelDirName(model: string): string {
  const i = model.indexOf("/");
  return i < 0 ? model : model.slice(i + 1);
}

/** `https://huggingface.co/<repo>/resolve/main/config.json`. */
export function hfConfigUrl(repo: string): string {
  return `https://huggingface.co/${repo}/resolve/main/config.json`;
}

/**
 * Finds and parses the model's config.json (docs/latency.md "Resolution (trained-physics and roofline)"):
 * 1. `modelConfigFolder` given: `<folder>/config.json` (any read/parse failure is fatal);
 * 2. else `<defaultsDir>/model_configs/<name after first "/">/config.json` if it is a usable config;
 * 3. else download config.json from the hub (repo = `hfRepo` or the model name; `Authorization:
 *    Bearer $HF_TOKEN` when set) and save it into that folder (a failed save only warns).
 * If the download fails: UserError with one line naming the model, the path looked for and
 * `--model-config-folder`.
 */
export async function resolveModelConfig(opts: ResolveModelConfigOptions): Promise<ResolvedModelConfig> {
  if (opts.modelConfigFolder !== undefined && opts.modelConfigFolder !== "") {
    const folder = opts.modelConfigFolder;
    const path = join(folder, "config.json");
    const config = loadModelConfigFile(path);
    return { config, text: readInputFile(path, SPEC_FILE_LIMIT), exactName: true, path, folder, origin: "explicit" };
  }
  const folder = join(opts.defaultsDir, "model_configs", localModelDirName(opts.model));
  const path = join(folder, "config.json");
  const bundled = bundledModelConfig(opts, folder, path);
  if (typeof bundled !== "string") return bundled;
  if (opts.allowDownload === false) {
    throw new ModelConfigNotBundled(`no bundled config.json for model ${opts.model} (looked for ${path})`);
  }
  const text = await downloadModelConfig(opts, path, bundled);
  const config = parseModelConfig(text);
  saveDownloadedConfig(opts, folder, path, text);
  return { config, text, exactName: true, path, folder, origin: "downloaded" };
}

/** Why no bundled config.json of the model's own name could be used. */
type BundledAbsence = "missing" | "invalid";

/** The bundled config.json of the model or, when there is none, of an equivalent architecture. */
function bundledModelConfig(
  opts: ResolveModelConfigOptions,
  folder: string,
  path: string,
): ResolvedModelConfig | BundledAbsence {
  let localText: string | null;
  try {
    localText = readInputFile(path, SPEC_FILE_LIMIT);
  } catch {
    localText = null;
  }
  if (localText === null) return aliasModelConfig(opts) ?? "missing";
  if (isUsableHFConfig(localText)) {
    return { config: parseModelConfig(localText), text: localText, exactName: true, path, folder, origin: "bundled" };
  }
  opts.logger.warn(`Ignoring ${path}: not a HuggingFace config.json (no num_hidden_layers or hidden_size)`);
  return "invalid";
}

/** The usable bundled config of another spelling of the model's name or of the same architecture. */
function aliasModelConfig(opts: ResolveModelConfigOptions): ResolvedModelConfig | null {
  const alias = findConfigFolder(join(opts.defaultsDir, "model_configs"), opts.model, localModelDirName(opts.model));
  if (alias === null || alias.exact) return null;
  const aliasFolder = join(opts.defaultsDir, "model_configs", alias.folder);
  const aliasPath = join(aliasFolder, "config.json");
  try {
    const text = readInputFile(aliasPath, SPEC_FILE_LIMIT);
    if (isUsableHFConfig(text)) {
      opts.logger.info(`Using the bundled config of ${alias.folder} for ${opts.model} (same architecture)`);
      return {
        config: parseModelConfig(text),
        text,
        exactName: false,
        path: aliasPath,
        folder: aliasFolder,
        origin: "bundled",
      };
    }
  } catch {
    // fall through to the download
  }
  return null;
}

/** The text of a usable config.json from the hub; any failure is a one-line UserError. */
async function downloadModelConfig(
  opts: ResolveModelConfigOptions,
  path: string,
  absence: BundledAbsence,
): Promise<string> {
  const repo = opts.hfRepo !== undefined && opts.hfRepo !== "" ? opts.hfRepo : opts.model;
  const url = hfConfigUrl(repo);
  const env = opts.env ?? process.env;
  const token = env["HF_TOKEN"];
  const headers: Record<string, string> = { Accept: "application/json" };
  if (token !== undefined && token !== "") headers["Authorization"] = `Bearer ${token}`;
  const timeoutMs = opts.timeoutMs ?? HF_DOWNLOAD_TIMEOUT_MS;
  const doFetch: FetchLike = opts.fetchImpl ?? (globalThis.fetch as unknown as FetchLike);

  opts.logger.info(`Model config for ${opts.model} not found at ${path}; downloading ${url}`);
  // A referenced timer (unlike AbortSignal.timeout) keeps the process alive until the deadline.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError")),
    timeoutMs,
  );
  try {
    const res = await doFetch(url, { headers, signal: controller.signal });
    if (!res.ok) throw new Error(httpReason(res.status, res.statusText, token !== undefined && token !== ""));
    const text = await res.text();
    if (!isUsableHFConfig(text)) throw new Error("the response is not a HuggingFace config.json");
    return text;
  } catch (e) {
    const looked = absence === "missing" ? `${path} does not exist` : `${path} is not a valid config.json`;
    throw new UserError(
      `No model config for model ${opts.model}: ${looked} and downloading ${url} failed ` +
        `(${downloadReason(e, timeoutMs)}); provide a folder containing its config.json with --model-config-folder`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Saves a downloaded config.json for later runs; a failure only warns. */
function saveDownloadedConfig(opts: ResolveModelConfigOptions, folder: string, path: string, text: string): void {
  try {
    mkdirSync(folder, { recursive: true });
    // Written beside the target and renamed, so that a concurrent run never reads half a file.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    try {
      renameSync(tmp, path);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing left to clean
      }
      throw e;
    }
    opts.logger.info(`Saved model config for ${opts.model} to ${path}`);
  } catch (e) {
    opts.logger.warn(
      `Could not save the downloaded model config to ${path} (${fsReason(e)}); using it for this run only`,
    );
  }
}

function httpReason(status: number, statusText: string | undefined, hadToken: boolean): string {
  const base = `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
  if (status === 401 || status === 403) {
    return hadToken
      ? `${base}: HF_TOKEN has no access to this repository`
      : `${base}: gated or private repository, set HF_TOKEN`;
  }
  if (status === 404) return `${base}: no such repository or file`;
  return base;
}

function downloadReason(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err && (err.name === "TimeoutError" || err.name === "AbortError")) {
    return `timed out after ${timeoutMs / 1000} s`;
  }
  let msg = err?.message ?? String(e);
  const cause = err?.cause;
  if (cause && (cause.code || cause.message)) msg += `: ${cause.code ?? cause.message}`;
  return oneLine(msg);
}

import path from "node:path";
import { BUNDLED_DEFAULTS, BUNDLED_DEFAULTS_CACHE } from "../util/paths.js";
import { parseDocument } from "yaml";
import { z } from "zod";
import { UserError } from "../util/errors.js";
import { readJsonCache } from "./coefficientFile.js";
import { InputFileError, readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

const DefaultEntry = z.strictObject({
  GPU: z.string(),
  tensor_parallelism: z.number().int(),
  /** Seed-era entries name the vLLM version of their coefficients; current ones do not. */
  vllm_version: z.string().optional(),
  hf_repo: z.string().optional(),
});

const ModelEntry = z.strictObject({
  id: z.string(),
  GPU: z.string(),
  tensor_parallelism: z.number().int(),
  vllm_version: z.string(),
  alpha_coeffs: z.array(z.number()),
  beta_coeffs: z.array(z.number()),
  total_kv_blocks: z.number().int(),
  best_loss: z.number().optional(),
});

const PresetEntry = z.strictObject({
  prefix_tokens: z.number().int().optional(),
  prompt_tokens: z.number().int().optional(),
  prompt_tokens_stdev: z.number().int().optional(),
  prompt_tokens_min: z.number().int().optional(),
  prompt_tokens_max: z.number().int().optional(),
  output_tokens: z.number().int().optional(),
  output_tokens_stdev: z.number().int().optional(),
  output_tokens_min: z.number().int().optional(),
  output_tokens_max: z.number().int().optional(),
});

/** The union of the seed and current schemas, so one file can serve every latency backend. */
export const DefaultsFileSchema = z.strictObject({
  defaults: z.record(z.string(), DefaultEntry).optional(),
  models: z.array(ModelEntry).optional(),
  workloads: z.record(z.string(), PresetEntry).optional(),
  version: z.union([z.string(), z.number()]).optional(),
  trained_physics_coefficients: z
    .strictObject({ alpha_coeffs: z.array(z.number()), beta_coeffs: z.array(z.number()) })
    .optional(),
  /** Read by subsystems that are not modeled; accepted so current files load. */
  lora: z.unknown().optional(),
  kv_offload_devices: z.unknown().optional(),
});

export type DefaultsFile = z.infer<typeof DefaultsFileSchema>;
export type PresetSpec = z.infer<typeof PresetEntry>;
export type ModelCoefficients = z.infer<typeof ModelEntry>;

const cache = new Map<string, DefaultsFile>();

/** Reads and strictly decodes a defaults file (docs/latency.md "Backends"). */
export function loadDefaultsFile(file: string): DefaultsFile {
  const hit = cache.get(file);
  if (hit) return hit;
  const cached = readBuildCache(file);
  if (cached !== undefined) {
    const parsedCache = DefaultsFileSchema.safeParse(cached);
    if (parsedCache.success) {
      cache.set(file, parsedCache.data);
      return parsedCache.data;
    }
  }
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    throw new UserError(
      `Failed to read defaults file ${JSON.stringify(file)} (--defaults-filepath): ${(e as InputFileError).code ?? readFailure(e)}`,
    );
  }
  const doc = parseDocument(text, { uniqueKeys: false, logLevel: "error" });
  if (doc.errors.length > 0) {
    throw new UserError(`Failed to parse defaults YAML ${file}: ${doc.errors[0]!.message.split("\n")[0]}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // An alias that expands into too many nodes (a "billion laughs" file).
    throw new UserError(`Failed to parse defaults YAML ${file}: ${(e as Error).message}`);
  }
  if (value === null || value === undefined || (typeof value === "object" && Object.keys(value).length === 0)) {
    // Every reader would otherwise report the entry it misses, far from the cause.
    throw new UserError(
      `defaults file ${file} (--defaults-filepath) is empty: it needs at least one of defaults, models, workloads, trained_physics_coefficients`,
    );
  }
  const parsed = DefaultsFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join(".");
    const what = issue.code === "unrecognized_keys" ? `unknown field ${JSON.stringify(issue.keys[0])}` : issue.message;
    throw new UserError(`Failed to parse defaults YAML ${file}: ${where ? where + ": " : ""}${what}`);
  }
  cache.set(file, parsed.data);
  return parsed.data;
}

/** The build-time JSON copy of the bundled defaults file, if it is current (see scripts/). */
function readBuildCache(file: string): unknown {
  return path.resolve(file) === BUNDLED_DEFAULTS ? readJsonCache(file, BUNDLED_DEFAULTS_CACHE) : undefined;
}

/** First `models` entry matching (id, GPU, TP, vLLM version) exactly (docs/latency.md "Backends"). */
export function lookupCoefficients(
  d: DefaultsFile,
  model: string,
  gpu: string,
  tp: number,
  vllmVersion: string,
): ModelCoefficients | undefined {
  return (d.models ?? []).find(
    (m) => m.id === model && m.GPU === gpu && m.tensor_parallelism === tp && m.vllm_version === vllmVersion,
  );
}

// Preset mode (docs/behavior.md "Sources and precedence") and reading the `workloads:` presets of a
// defaults file.

import { UserError } from "../../util/errors.js";
import { SPEC_FILE_LIMIT } from "../../util/inputFile.js";
import { FileReadError, readTextFile } from "../util/files.js";
import { decodeStrict, parseYamlRoot } from "../spec/load.js";
import { int, obj, record, type Infer } from "../spec/schema.js";
import type { WorkloadSpec } from "../spec/types.js";
import {
  checkNumRequestsFlag,
  checkRateFlag,
  DEFAULT_DISTRIBUTION_FLAGS,
  synthesizeGaussianSpec,
  type TokenShape,
} from "./distribution.js";

export const PresetSchema = obj("workload preset", {
  prefix_tokens: int,
  prompt_tokens: int,
  prompt_tokens_stdev: int,
  prompt_tokens_min: int,
  prompt_tokens_max: int,
  output_tokens: int,
  output_tokens_stdev: int,
  output_tokens_min: int,
  output_tokens_max: int,
});
export type PresetEntry = Infer<typeof PresetSchema>;
/** A preset as found in a config object: missing keys mean 0. */
export type PresetLike = Partial<PresetEntry>;

export function presetShape(p: PresetLike): TokenShape {
  return {
    prefixTokens: p.prefix_tokens ?? 0,
    promptTokens: p.prompt_tokens ?? 0,
    promptTokensStdev: p.prompt_tokens_stdev ?? 0,
    promptTokensMin: p.prompt_tokens_min ?? 0,
    promptTokensMax: p.prompt_tokens_max ?? 0,
    outputTokens: p.output_tokens ?? 0,
    outputTokensStdev: p.output_tokens_stdev ?? 0,
    outputTokensMin: p.output_tokens_min ?? 0,
    outputTokensMax: p.output_tokens_max ?? 0,
  };
}

function lookup(presets: Readonly<Record<string, PresetLike>>, name: string): PresetLike | undefined {
  return Object.prototype.hasOwnProperty.call(presets, name) ? presets[name] : undefined;
}

/**
 * `blis run --workload <name>`: rate check, lookup, then the distribution-mode synthesis (no range
 * check).
 */
export function specFromPreset(
  name: string,
  presets: Readonly<Record<string, PresetLike>>,
  rate: number,
  numRequests: number,
  seed: bigint,
): WorkloadSpec {
  checkRateFlag(rate);
  const preset = lookup(presets, name);
  if (preset === undefined) {
    throw new UserError(
      `Undefined workload "${name}". Use one among (chatbot, summarization, contentgen, multidoc) or --workload-spec`,
    );
  }
  return synthesizeGaussianSpec("distribution", presetShape(preset), rate, numRequests, seed);
}

/**
 * `convert preset` (docs/behavior.md "Traces, convert and compose"): client `preset-<name>`, prefix
 * length = preset prefix, and `seed` = the run's workload seed (default 42 like `--seed`, not
 * BLIS's 0), so that running the file reproduces `run --workload <name>` (docs/behavior.md#w25).
 */
export function presetToSpec(
  name: string,
  presets: Readonly<Record<string, PresetLike>>,
  rate: number,
  numRequests: number,
  seed: bigint = DEFAULT_DISTRIBUTION_FLAGS.seed,
): WorkloadSpec {
  checkRateFlag(rate);
  checkNumRequestsFlag(numRequests);
  const preset = lookup(presets, name);
  if (preset === undefined)
    throw new UserError(`Unknown preset "${name}". Check defaults.yaml for available workloads.`);
  const shape = presetShape(preset);
  const spec = synthesizeGaussianSpec(`preset-${name}`, { ...shape, prefixTokens: 0 }, rate, numRequests, seed);
  const client = spec.clients[0]!;
  client.prefix_length = shape.prefixTokens;
  if (shape.prefixTokens > 0) client.prefix_group = "shared";
  return spec;
}

// Only the top-level keys and the `workloads:` section are checked here; the model tables
// belong to the latency-model configuration, which validates them when `run` loads the file.
const DEFAULTS_TOP_LEVEL = new Set(["models", "defaults", "version", "workloads", "lora"]);
const WHAT = "Failed to parse defaults YAML";

/** Reads the `workloads:` presets of a defaults.yaml file. */
export function readPresetsFromDefaults(path: string): Record<string, PresetEntry> {
  let text: string;
  try {
    text = readTextFile(path, SPEC_FILE_LIMIT);
  } catch (err) {
    if (err instanceof FileReadError)
      throw new UserError(`Failed to read defaults file (--defaults-filepath): ${err.message}`);
    throw err;
  }
  // The bundled file repeats some model keys, so duplicates are tolerated here.
  const root = parseYamlRoot(text, WHAT, { uniqueKeys: false });
  if (root.k !== "map") throw new UserError(`${WHAT}: the document must be a mapping`);
  let presets: Record<string, PresetEntry> = {};
  for (const entry of root.entries) {
    if (!DEFAULTS_TOP_LEVEL.has(entry.key)) {
      const pos = entry.keyPos === null ? "" : ` (line ${entry.keyPos.line}, column ${entry.keyPos.col})`;
      throw new UserError(`${WHAT}: unknown key "${entry.key}"${pos}`);
    }
    if (entry.key === "workloads")
      presets = decodeStrict(record(PresetSchema), entry.value, WHAT, new Map(), "workloads");
  }
  return presets;
}

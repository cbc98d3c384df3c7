// Model architecture read from a HuggingFace config.json for the analytical latency backends and
// the KV capacity calculation (docs/latency.md "Resolution (trained-physics and roofline)"). Field rules: integers only
// from JSON
// numbers, first non-zero fallbacks, `text_config` merged over the top level.

import { UserError } from "../util/errors.js";
import { bytesPerParamForDtype } from "./modelConfig.js";

/** Everything the trained-physics, roofline and KV-capacity code reads of a model. */
export interface ArchConfig {
  /** L: `num_hidden_layers`. */
  numLayers: number;
  /** d: `hidden_size`. */
  hiddenSize: number;
  /** H: `num_attention_heads`. */
  numHeads: number;
  /** H_kv: first non-zero of num_key_value_heads, num_kv_heads, multi_query_group_num; else H. */
  numKvHeads: number;
  /** f: first non-zero of intermediate_size, ffn_hidden_size; 0 if neither. */
  intermediateSize: number;
  /** a_b: activation bytes per parameter from torch_dtype / dtype. */
  activationBytes: number;
  /** w_b: weight bytes per parameter after quantization rules (a_b when unquantized). */
  weightBytes: number;
  /** N_e: routed experts (0 for dense models). */
  numExperts: number;
  /** k_raw: `num_experts_per_tok`. */
  expertsPerTok: number;
  /** f_moe: `moe_intermediate_size`, or f when 0. */
  moeIntermediateSize: number;
  /** f_sh: shared-expert FFN width; 0 = no shared expert. */
  sharedExpertSize: number;
  /** s_int: `interleave_moe_layer_step` (0 = uniform). */
  interleaveStep: number;
  /** f_dense: `intermediate_size_mlp`, or f when 0. */
  denseIntermediateSize: number;
  /** `head_dim` (capacity only). */
  headDim: number;
  /** MLA latent ranks (capacity only). */
  kvLoraRank: number;
  qkRopeHeadDim: number;
  /** `first_k_dense_replace` (capacity only). */
  firstKDense: number;
  /** `n_shared_experts` as read (capacity extraction checks it). */
  nSharedExperts: number;
  /** Which total-expert key was present with a value ≥ 2, or "" (capacity extraction). */
  expertKey: string;
  vocabSize: number;
  tieWordEmbeddings: boolean;
  /** `hidden_act` string, "" when absent. */
  hiddenAct: string;
  maxPositionEmbeddings: number;
  /** Raw `rope_scaling` value (object, null, or anything else), undefined when absent. */
  ropeScaling: unknown;
  modelType: string;
}

const EXPERT_KEYS = ["num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts", "num_routed_experts"];
const NON_NEGATIVE_KEYS = ["head_dim", "kv_lora_rank", "qk_rope_head_dim", "first_k_dense_replace"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Parses config.json text for `model` (the lower-cased `--model`, used by the quantization name
 * rule). `useQuantizationConfig` is false when the config belongs to another release of the same
 * architecture (a quantized or unquantized sibling): then only the model's own name says how its
 * weights are stored.
 */
export function parseArchConfig(text: string, model: string, source: string, useQuantizationConfig = true): ArchConfig {
  let top: unknown;
  try {
    top = JSON.parse(text);
  } catch (e) {
    throw new UserError(`Failed to parse HuggingFace config: ${source}: ${(e as Error).message.replace(/\s+/g, " ")}`);
  }
  if (!isObject(top)) throw new UserError(`Failed to parse HuggingFace config: ${source}: expected a JSON object`);
  const raw = new Map<string, unknown>(Object.entries(top));
  const tc = raw.get("text_config");
  if (isObject(tc)) for (const [k, v] of Object.entries(tc)) raw.set(k, v);

  const int = (key: string): number => {
    const v = raw.get(key);
    return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) + 0 : 0;
  };
  const firstNonZero = (...keys: string[]): number => {
    for (const k of keys) if (int(k) !== 0) return int(k);
    return 0;
  };
  for (const k of NON_NEGATIVE_KEYS) {
    if (int(k) < 0)
      throw new UserError(`Failed to load model config: GetModelConfigFromHF: ${k} must be >= 0, got ${int(k)}`);
  }
  const str = (key: string): string => {
    const v = raw.get(key);
    return typeof v === "string" ? v : "";
  };

  const numHeads = int("num_attention_heads");
  const f = firstNonZero("intermediate_size", "ffn_hidden_size");
  const dtype = typeof raw.get("torch_dtype") === "string" ? str("torch_dtype") : str("dtype");
  const activationBytes = bytesPerParamForDtype(dtype);
  let expertKey = "";
  let numExperts = 0;
  for (const k of EXPERT_KEYS) {
    if (int(k) >= 2) {
      expertKey = k;
      numExperts = int(k);
      break;
    }
  }
  const moeF = int("moe_intermediate_size") !== 0 ? int("moe_intermediate_size") : f;
  const shExplicit = int("shared_expert_intermediate_size");
  const nShared = int("n_shared_experts");
  const sharedExpertSize = shExplicit > 0 ? shExplicit : nShared * moeF;
  const quantBytes = quantizationBytes(useQuantizationConfig ? raw.get("quantization_config") : undefined, model);
  return {
    numLayers: int("num_hidden_layers"),
    hiddenSize: int("hidden_size"),
    numHeads,
    numKvHeads: firstNonZero("num_key_value_heads", "num_kv_heads", "multi_query_group_num") || numHeads,
    intermediateSize: f,
    activationBytes,
    weightBytes: quantBytes > 0 ? quantBytes : activationBytes,
    numExperts,
    expertsPerTok: int("num_experts_per_tok"),
    moeIntermediateSize: moeF,
    sharedExpertSize,
    interleaveStep: int("interleave_moe_layer_step"),
    denseIntermediateSize: int("intermediate_size_mlp") !== 0 ? int("intermediate_size_mlp") : f,
    headDim: int("head_dim"),
    kvLoraRank: int("kv_lora_rank"),
    qkRopeHeadDim: int("qk_rope_head_dim"),
    firstKDense: int("first_k_dense_replace"),
    nSharedExperts: nShared,
    expertKey,
    vocabSize: int("vocab_size"),
    tieWordEmbeddings: raw.get("tie_word_embeddings") === true,
    hiddenAct: str("hidden_act"),
    maxPositionEmbeddings: int("max_position_embeddings"),
    ropeScaling: raw.has("rope_scaling") ? raw.get("rope_scaling") : undefined,
    modelType: str("model_type"),
  };
}

/** Weight bytes per parameter from the quantization config, else the model name; 0 = unquantized. */
export function quantizationBytes(qc: unknown, model: string): number {
  if (isObject(qc)) {
    const bits = qc["bits"];
    const b =
      typeof bits === "number" ? bits : typeof bits === "string" && /^[+-]?\d+$/.test(bits.trim()) ? Number(bits) : NaN;
    if (b > 0) return b / 8;
    const method = typeof qc["quant_method"] === "string" ? qc["quant_method"].toLowerCase() : "";
    if (method === "fp8") return 1;
    if (method === "compressed-tensors" && isObject(qc["config_groups"])) {
      const groups = qc["config_groups"];
      for (const key of Object.keys(groups).sort()) {
        const g = groups[key];
        const w = isObject(g) && isObject(g["weights"]) ? g["weights"]["num_bits"] : undefined;
        if (typeof w === "number" && w > 0) return w / 8;
      }
    }
  }
  const name = model.toLowerCase();
  const wa = /(?:^|[.\-_/])w(\d+)a(\d+)(?=$|[.\-_])/.exec(name);
  if (wa !== null) return Number(wa[1]) / 8;
  if (/(?:^|[.\-_/])fp8(?=$|[.\-_])/.test(name)) return 1;
  return 0;
}

/** N_e ≥ 2. */
export const isMoe = (a: ArchConfig): boolean => a.numExperts >= 2;

/** Dense and MoE layer counts (both backends). */
export function layerSplit(a: ArchConfig): { nMoe: number; nDense: number; interleaved: boolean } {
  if (!isMoe(a)) return { nMoe: 0, nDense: a.numLayers, interleaved: false };
  if (a.interleaveStep > 0) {
    const nMoe = Math.floor(a.numLayers / (a.interleaveStep + 1));
    return { nMoe, nDense: a.numLayers - nMoe, interleaved: true };
  }
  return { nMoe: a.numLayers, nDense: 0, interleaved: false };
}

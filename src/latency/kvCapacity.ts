// Automatic KV block count from GPU memory (docs/latency.md "KV capacity"): the GPUs' memory
// budget minus weights, activations and runtime overhead, divided by one block's KV bytes. The
// budget is summed over the TP GPUs while a block's bytes are per GPU, so the count grows about
// with TP²; that is the reference's capacity-planner formula, kept for parity.

import { formatFixed } from "../util/goFormat.js";
import { UserError } from "../util/errors.js";
import { isMoe, type ArchConfig } from "./archConfig.js";
import { formatGoFloat } from "./roofline.js";

/** A capacity calculation failed; the message is the reference's "CalculateKVBlocks: …" text. */
export class KvCapacityError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "KvCapacityError";
  }
}

/** What the capacity formula reads beyond the shape (docs/latency.md "KV capacity"). */
export interface KvCapacityParams {
  isMoe: boolean;
  /** N_e (≥ 2 for MoE, else 0). */
  numExperts: number;
  tieWordEmbeddings: boolean;
  /** `hidden_act`; "" when absent (SwiGLU assumed). */
  hiddenAct: string;
}

/** Extraction result: the parameters, or why the weights cannot be estimated (fall back to the flag). */
export type KvParamsExtraction = { ok: true; params: KvCapacityParams } | { ok: false; reason: string };

/**
 * The capacity parameters of a model. An MoE-looking config without a total-expert count
 * (n_shared_experts or num_experts_per_tok > 0, no expert key ≥ 2) cannot be sized: the result
 * is { ok: false } with the reference's reason, and the caller warns and keeps the flag value.
 */
export function extractKvCapacityParams(arch: ArchConfig): KvParamsExtraction {
  const base = { tieWordEmbeddings: arch.tieWordEmbeddings, hiddenAct: arch.hiddenAct };
  if (isMoe(arch)) return { ok: true, params: { ...base, isMoe: true, numExperts: arch.numExperts } };
  const signals: Array<[string, number]> = [
    ["n_shared_experts", arch.nSharedExperts],
    ["num_experts_per_tok", arch.expertsPerTok],
  ];
  for (const [key, v] of signals) {
    if (v > 0) {
      return {
        ok: false,
        reason:
          `model appears to be MoE (${key}=${v}) but num_local_experts is missing; ` +
          "cannot estimate weight size accurately. Set --total-kv-blocks explicitly",
      };
    }
  }
  return { ok: true, params: { ...base, isMoe: false, numExperts: 0 } };
}

/** Activations with the three-matrix (gated) MLP the weight formula assumes; "" = assumed. */
const SWIGLU_ACTIVATIONS = new Set(["silu", "swiglu", "geglu", "situ", ""]);

/** Memory constants of the capacity planner, in GiB. */
const ACTIVATION_DENSE_GIB = 5.5;
const ACTIVATION_MOE_GIB = 8.0;
const NON_TORCH_TP1_GIB = 0.15;
const NON_TORCH_MULTI_GIB = 0.6;
const GIB = 1073741824;

/** Head dimension for capacity: `head_dim` when set, else floor(d / H). */
function headDim(arch: ArchConfig): number {
  return arch.headDim > 0 ? arch.headDim : Math.floor(arch.hiddenSize / arch.numHeads);
}

function perTokenFail(message: string): never {
  throw new KvCapacityError(`CalculateKVBlocks: KVBytesPerToken: ${message}`);
}

/**
 * KV bytes per token on one GPU. Standard attention: L·2·hd·H_kv·a_b / tp (H_kv must divide by
 * tp only when H_kv ≥ tp; below that the division still happens, optimistically). MLA
 * (kv_lora_rank > 0): L·(r_kv + r_rope)·a_b, the same on every TP rank.
 */
export function kvBytesPerToken(arch: ArchConfig, tp: number): number {
  if (!(tp > 0)) perTokenFail(`TP must be > 0, got ${tp}`);
  if (!(arch.numLayers > 0)) perTokenFail(`num_layers must be > 0, got ${arch.numLayers}`);
  if (!(arch.numHeads > 0)) perTokenFail(`num_attention_heads must be > 0, got ${arch.numHeads}`);
  if (!(arch.hiddenSize > 0)) perTokenFail(`hidden_dim must be > 0, got ${arch.hiddenSize}`);
  const ab = arch.activationBytes;
  if (!(ab > 0 && Number.isFinite(ab))) {
    perTokenFail(`precision (BytesPerParam) must be a valid positive number, got ${formatGoFloat(ab)}`);
  }
  if (arch.kvLoraRank > 0) {
    const perToken = arch.numLayers * (arch.kvLoraRank + arch.qkRopeHeadDim) * ab;
    if (!(perToken > 0)) {
      perTokenFail(
        `MLA computed value is ${formatFixed(perToken, 4)} (expected > 0); check BytesPerParam=${formatFixed(ab, 4)}, ` +
          `kv_lora_rank=${arch.kvLoraRank}, qk_rope_head_dim=${arch.qkRopeHeadDim}`,
      );
    }
    return perToken;
  }
  if (arch.headDim <= 0 && arch.hiddenSize % arch.numHeads !== 0) {
    perTokenFail(`hidden_dim (${arch.hiddenSize}) must be evenly divisible by num_attention_heads (${arch.numHeads})`);
  }
  const kvHeads = arch.numKvHeads;
  if (kvHeads >= tp && kvHeads % tp !== 0) {
    perTokenFail(`num_kv_heads (${kvHeads}) must be evenly divisible by TP (${tp})`);
  }
  return (arch.numLayers * 2 * headDim(arch) * kvHeads * ab) / tp;
}

/**
 * Parameter count of the whole model, in exact integer arithmetic:
 * V·d (embeddings) + L·(attention + norms) + MLP total + (tied ? 0 : V·d) + d (final norm).
 * Attention/layer = d·(d + 2·kvd) + d·d with kvd = H_kv·hd; norms/layer = 2·d; dense MLP/layer =
 * 3·d·f; MoE MLP/layer = 3·d·f_moe·N_e + 3·d·f_sh + N_e·d (router), with the first
 * K = first_k_dense_replace layers dense (3·d·f_dense). interleave_moe_layer_step is ignored here.
 */
export function modelParamCount(arch: ArchConfig, params: KvCapacityParams): bigint {
  const d = BigInt(arch.hiddenSize);
  const L = BigInt(arch.numLayers);
  const V = BigInt(arch.vocabSize);
  const kvd = BigInt(arch.numKvHeads) * BigInt(headDim(arch));
  const attention = d * (d + 2n * kvd) + d * d;
  const norms = 2n * d;
  let mlp: bigint;
  if (params.isMoe && params.numExperts >= 2) {
    const ne = BigInt(params.numExperts);
    const fMoe = arch.moeIntermediateSize > 0 ? arch.moeIntermediateSize : arch.intermediateSize;
    let moeLayer = 3n * d * BigInt(fMoe) * ne;
    if (arch.sharedExpertSize > 0) moeLayer += 3n * d * BigInt(arch.sharedExpertSize);
    moeLayer += ne * d;
    const k = BigInt(Math.min(Math.max(arch.firstKDense, 0), arch.numLayers));
    const fDense = arch.denseIntermediateSize > 0 ? arch.denseIntermediateSize : arch.intermediateSize;
    const densePrefix = 3n * d * BigInt(fDense);
    mlp = k * densePrefix + (L - k) * moeLayer;
  } else {
    mlp = L * 3n * d * BigInt(arch.intermediateSize);
  }
  const lmHead = params.tieWordEmbeddings ? 0n : V * d;
  return V * d + L * (attention + norms) + mlp + lmHead + d;
}

/** Weight bytes: trunc(params · w_b), the parameter count rounded to a double first. */
export function modelWeightBytes(arch: ArchConfig, params: KvCapacityParams): number {
  return Math.trunc(Number(modelParamCount(arch, params)) * arch.weightBytes);
}

/** The deployment a capacity is computed for. */
export interface KvBudget {
  /** GPU memory per GPU (`MemoryGiB`). */
  memoryGiB: number;
  tp: number;
  /** Data-parallel ranks (an MoE instance's block count is multiplied by it). */
  dp: number;
  /** `--gpu-memory-utilization`, in (0, 1]. */
  gpuMemoryUtilization: number;
  /** Tokens per block. */
  blockSize: number;
  /** LoRA adapter reservation in bytes (0 unless adapters are configured). */
  loraReservedBytes?: number;
}

function fail(message: string): never {
  throw new KvCapacityError(`CalculateKVBlocks: ${message}`);
}

function validateBudget(arch: ArchConfig, b: KvBudget, lora: number): void {
  const u = b.gpuMemoryUtilization;
  if (!(u > 0 && u <= 1)) fail(`gpuMemoryUtilization must be in (0, 1.0], got ${formatGoFloat(u)}`);
  if (!(lora >= 0)) fail(`adapterReservedBytes must be >= 0, got ${lora}`);
  if (!(b.blockSize > 0)) fail(`block size must be > 0, got ${b.blockSize}`);
  if (!(b.dp >= 1)) fail(`dp must be >= 1, got ${b.dp}`);
  if (!(arch.intermediateSize > 0)) fail(`intermediate_dim must be > 0, got ${arch.intermediateSize}`);
  if (!(arch.vocabSize > 0)) fail(`vocab_size must be > 0, got ${arch.vocabSize}`);
  const mem = b.memoryGiB;
  if (!(mem > 0 && Number.isFinite(mem))) {
    fail(`GPU memory (MemoryGiB) must be a valid positive number, got ${formatGoFloat(mem)}`);
  }
  // 0 means "unquantized with an unknown dtype": the per-token check reports that.
  const wb = arch.weightBytes;
  if (wb !== 0 && !(wb > 0 && Number.isFinite(wb)))
    fail(`WeightBytesPerParam must be positive when set, got ${formatGoFloat(wb)}`);
}

/**
 * The error when weights, activations and overhead do not fit, naming the model and TP before
 * the reference's text. m = ceil((W + A + R) / (MemoryGiB·u − 0.6)).
 */
function overheadError(model: string, b: KvBudget, parts: OverheadParts): KvCapacityError {
  const who = `${model} at TP ${b.tp}: CalculateKVBlocks: `;
  const perGpu = b.memoryGiB * b.gpuMemoryUtilization;
  const capacity = perGpu - NON_TORCH_MULTI_GIB;
  const f2 = (x: number): string => formatFixed(x, 2);
  if (capacity <= 0) {
    return new KvCapacityError(
      `${who}insufficient per-GPU capacity (${f2(perGpu)} GiB available - ${f2(NON_TORCH_MULTI_GIB)} GiB non-torch overhead = ` +
        `${f2(capacity)} GiB). Cannot fit model even with increased TP`,
    );
  }
  const minGpus = Math.ceil((parts.weights + parts.activation + parts.lora) / capacity);
  return new KvCapacityError(
    `${who}model overhead (${f2(parts.total)} GiB = ${f2(parts.weights)} weights + ${f2(parts.activation)} activation + ` +
      `${f2(parts.nonTorch)} non-torch + ${f2(parts.lora)} lora-adapter-reservation) exceeds available GPU memory ` +
      `(${f2(parts.available)} GiB = ${formatFixed(b.memoryGiB, 1)} GiB × ${formatFixed(b.gpuMemoryUtilization * 100, 0)}% util × ` +
      `${b.tp} GPUs). Minimum GPUs required per instance: ${minGpus}`,
  );
}

interface OverheadParts {
  weights: number;
  activation: number;
  nonTorch: number;
  lora: number;
  total: number;
  available: number;
}

/**
 * Automatic KV block count (docs/latency.md "KV capacity"). `model` names the model in the
 * does-not-fit error. Throws KvCapacityError ("CalculateKVBlocks: …"; the does-not-fit errors
 * are prefixed "<model> at TP <tp>: ").
 */
export function calculateKvBlocks(arch: ArchConfig, params: KvCapacityParams, budget: KvBudget, model: string): number {
  const lora = budget.loraReservedBytes ?? 0;
  validateBudget(arch, budget, lora);
  if (!SWIGLU_ACTIVATIONS.has(params.hiddenAct)) {
    fail(
      `unsupported activation "${params.hiddenAct}"; only SwiGLU-family activations (silu, swiglu, geglu, situ) are supported`,
    );
  }
  const perToken = kvBytesPerToken(arch, budget.tp);
  const perBlock = Math.trunc(perToken * budget.blockSize);
  if (!(perBlock > 0)) {
    fail(
      `per-block KV bytes is ${perBlock} (expected > 0); perTokenKVBytesPerGPU=${formatFixed(perToken, 6)}, ` +
        `blockSize=${budget.blockSize} — check BytesPerParam and TP`,
    );
  }
  const tp = budget.tp;
  const available = budget.memoryGiB * budget.gpuMemoryUtilization * tp;
  const weights = modelWeightBytes(arch, params) / GIB;
  const activation = params.isMoe ? ACTIVATION_MOE_GIB : ACTIVATION_DENSE_GIB;
  const nonTorch = (tp === 1 ? NON_TORCH_TP1_GIB : NON_TORCH_MULTI_GIB) * tp;
  const loraGiB = lora / GIB;
  const total = weights + activation + nonTorch + loraGiB;
  if (total >= available) {
    throw overheadError(model, budget, { weights, activation, nonTorch, lora: loraGiB, total, available });
  }
  const allocatable = available - total;
  const allocatableBytes = Math.trunc(allocatable * GIB);
  let blocks = Math.floor(allocatableBytes / perBlock);
  if (!(blocks > 0)) {
    fail(`computed 0 blocks (allocatable=${formatFixed(allocatable, 2)} GiB, per_block=${perBlock} bytes)`);
  }
  if (params.isMoe && budget.dp > 1) blocks *= budget.dp;
  return blocks;
}

/** A log line for the caller to emit. */
export interface CapacityMessage {
  level: "info" | "warn";
  text: string;
}

/** Outcome of the automatic sizing: the block count to use and what to log. */
export interface AutoKvBlocks {
  blocks: number;
  /** false: the fallback (flag) value was kept. */
  auto: boolean;
  messages: CapacityMessage[];
}

/**
 * The whole automatic step (docs/latency.md "KV capacity"), for an analytical backend when
 * --total-kv-blocks was not given. Unextractable parameters or no MemoryGiB: a warning and the
 * fallback. A calculation error: UserError "--latency-model: KV capacity auto-calculation
 * failed: <err>".
 */
export function autoKvBlocks(arch: ArchConfig, budget: KvBudget, model: string, fallbackBlocks: number): AutoKvBlocks {
  const extraction = extractKvCapacityParams(arch);
  if (!extraction.ok) {
    const text =
      `--latency-model: could not extract KV capacity params: ${extraction.reason}. ` +
      `Using total-kv-blocks=${fallbackBlocks}. Set --total-kv-blocks explicitly to override`;
    return { blocks: fallbackBlocks, auto: false, messages: [{ level: "warn", text }] };
  }
  if (!(budget.memoryGiB > 0)) {
    const text =
      "--latency-model: GPU memory capacity not available in hardware config; " +
      `using current total-kv-blocks=${fallbackBlocks}. Add MemoryGiB to hardware_config.json or pass --total-kv-blocks explicitly`;
    return { blocks: fallbackBlocks, auto: false, messages: [{ level: "warn", text }] };
  }
  const messages: CapacityMessage[] = [];
  const params = extraction.params;
  if (params.hiddenAct === "") {
    messages.push({
      level: "info",
      text: "--latency-model: hidden_act not set in config.json; assuming SwiGLU (3-matrix MLP) for weight estimation",
    });
  }
  let blocks: number;
  try {
    blocks = calculateKvBlocks(arch, params, budget, model);
  } catch (e) {
    if (e instanceof KvCapacityError)
      throw new UserError(`--latency-model: KV capacity auto-calculation failed: ${e.message}`);
    throw e;
  }
  messages.push({
    level: "info",
    text: `--gpu-memory-utilization: ${formatFixed(budget.gpuMemoryUtilization, 2)} used for KV block auto-calculation`,
  });
  messages.push({
    level: "info",
    text:
      `--latency-model: auto-calculated total-kv-blocks=${blocks} (GPU=${formatFixed(budget.memoryGiB, 0)} GiB, ` +
      `TP=${budget.tp}, block_size=${budget.blockSize}, MoE=${params.isMoe})`,
  });
  return { blocks, auto: true, messages };
}

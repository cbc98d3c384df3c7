// Roofline step-time model, current form (docs/latency.md "Roofline"): one forward pass per
// step, weights loaded once, a single crossover max(compute, memory), no overhead terms, MoE
// expert loading and the FP8 peak. Floating-point work keeps the reference's evaluation order
// (left to right, parentheses first) so that step times match it to the tick.

import { ConstructionError } from "../util/errors.js";
import { isMoe, layerSplit, type ArchConfig } from "./archConfig.js";
import type { HardwareCalib } from "./hardwareConfig.js";
import type { LatencyModel, StepRequestView } from "./model.js";
import {
  collectProblems,
  formatGoFloat,
  optionalHardwareProblem,
  positiveFloatProblem,
  positiveIntProblem,
} from "./roofline.js";

/** int64 max, where a NaN or overflowing step time is clamped (as a double: 2^63). */
const MAX_TICKS = 2 ** 63; // int64 max as a double

/** MoE consistency problems (docs/latency.md "Roofline", validation). */
function moeProblems(arch: ArchConfig): Array<string | null> {
  const n = arch.numExperts;
  const k = arch.expertsPerTok;
  return [
    n < 0 ? `MoE: NumLocalExperts must be >= 0, got ${n}` : null,
    n > 1 && k <= 0 ? `MoE: NumLocalExperts=${n} but active experts per token (NumExpertsPerTok) must be > 0` : null,
    k > n && n > 1 ? `MoE: NumExpertsPerTok (${k}) cannot exceed NumLocalExperts (${n})` : null,
    n === 0 && k > 0 ? `MoE: NumExpertsPerTok=${k} but NumLocalExperts=0 (inconsistent)` : null,
    arch.moeIntermediateSize < 0 ? `MoE: MoEExpertFFNDim must be >= 0, got ${arch.moeIntermediateSize}` : null,
    arch.sharedExpertSize < 0 ? `MoE: SharedExpertFFNDim must be >= 0, got ${arch.sharedExpertSize}` : null,
  ];
}

/**
 * Every validation problem of a model/GPU pair for the current roofline, in the reference's
 * order; empty when valid. The seed efficiency fields (BwEffConstant) are no longer checked.
 */
export function rooflineV2ConfigProblems(arch: ArchConfig, hw: HardwareCalib): string[] {
  const wb = arch.weightBytes;
  return collectProblems([
    positiveIntProblem("NumHeads", arch.numHeads),
    positiveIntProblem("NumLayers", arch.numLayers),
    positiveIntProblem("HiddenDim", arch.hiddenSize),
    positiveFloatProblem("ModelConfig", "BytesPerParam", arch.activationBytes),
    positiveFloatProblem("HardwareCalib", "TFlopsPeak", hw.tFlopsPeak),
    positiveFloatProblem("HardwareCalib", "BwPeakTBs", hw.bwPeakTBs),
    positiveFloatProblem("HardwareCalib", "MfuPrefill", hw.mfuPrefill),
    positiveFloatProblem("HardwareCalib", "MfuDecode", hw.mfuDecode),
    ...moeProblems(arch),
    optionalHardwareProblem("MemoryGiB", hw.memoryGiB),
    optionalHardwareProblem("TFlopsFP8", hw.tFlopsFP8),
    wb === 0 || (wb > 0 && Number.isFinite(wb))
      ? null
      : `ModelConfig.WeightBytesPerParam must be positive when set, got ${formatGoFloat(wb)}`,
  ]);
}

/**
 * Analytical step time at the current reference (docs/latency.md "Roofline"). Alpha is always
 * zero there (coefficients cannot be combined with this backend), so the per-request hooks are 0.
 */
export class RooflineV2LatencyModel implements LatencyModel {
  readonly timeline = "current" as const;

  private readonly tp: number;
  private readonly L: number;
  private readonly d: number;
  private readonly dh: number;
  /** Per-request FLOP factors: 4·H, 5·H, d·d + 2·d·d_kv. */
  private readonly attnHeads: number;
  private readonly vecHeads: number;
  private readonly qkvFactor: number;
  /** MLP FLOPs per token per layer before ×2·n: 2·d·f_moe (× k) and 2·d·f_dense. */
  private readonly moeMlp: number;
  private readonly denseMlp: number;
  private readonly topK: number;
  private readonly nMoe: number;
  private readonly nDense: number;
  /** KV bytes per token (read or written) and activation bytes per token. */
  private readonly kvPerToken: number;
  private readonly actPerToken: number;
  /** Weight-term pieces: L·(attention weights), 2·d·f_moe, 2·d·f_dense·n_dense, w_b. */
  private readonly attnWeights: number;
  private readonly denseWeights: number;
  private readonly wb: number;
  private readonly numExperts: number;
  /** (N_e − k)/N_e: the chance one token's routing misses a given expert. */
  private readonly missRatio: number;
  /** Model weight bytes for any step (dense), or for a one-token request (MoE). */
  private readonly weightsOneToken: number;
  /** Peak × MFU for each phase, and bytes per second. */
  private readonly prefillRate: number;
  private readonly decodeRate: number;
  private readonly bandwidth: number;

  /**
   * Throws ConstructionError: "latency model: roofline requires TP > 0, got N", else every
   * problem of rooflineV2ConfigProblems joined by "; " after "latency model: invalid roofline config: ".
   */
  constructor(arch: ArchConfig, hw: HardwareCalib, tp: number) {
    if (!(tp > 0)) throw new ConstructionError(`latency model: roofline requires TP > 0, got ${tp}`);
    const problems = rooflineV2ConfigProblems(arch, hw);
    if (problems.length > 0) {
      throw new ConstructionError(`latency model: invalid roofline config: ${problems.join("; ")}`);
    }
    this.tp = tp;
    const L = arch.numLayers;
    const d = arch.hiddenSize;
    const H = arch.numHeads;
    const dh = d / H; // a double here, unlike trained physics
    const dkv = arch.numKvHeads * dh;
    const f = arch.intermediateSize > 0 ? arch.intermediateSize : 4 * d;
    const fMoe = arch.moeIntermediateSize > 0 ? arch.moeIntermediateSize : f;
    const fDense = arch.denseIntermediateSize > 0 ? arch.denseIntermediateSize : f;
    const split = layerSplit(arch);
    this.L = L;
    this.d = d;
    this.dh = dh;
    this.attnHeads = 4 * H;
    this.vecHeads = 5 * H;
    this.qkvFactor = d * d + 2 * d * dkv;
    // Two MLP matrices (up, down), not three: docs/latency.md "Roofline".
    this.moeMlp = 2 * d * fMoe;
    this.denseMlp = 2 * d * fDense;
    this.topK = arch.expertsPerTok;
    this.nMoe = split.nMoe;
    this.nDense = split.nDense;
    const ab = arch.activationBytes;
    this.kvPerToken = 2 * L * arch.numKvHeads * dh * ab;
    this.actPerToken = L * d * ab;
    this.attnWeights = (d * (d + 2 * dkv) + d * d) * L;
    this.denseWeights = split.nDense > 0 ? this.denseMlp * split.nDense : 0;
    this.wb = arch.weightBytes;
    this.numExperts = arch.numExperts;
    this.missRatio = isMoe(arch) ? (arch.numExperts - arch.expertsPerTok) / arch.numExperts : 0;
    this.weightsOneToken = this.weightBytes(1);
    // The FP8 peak applies when weights are exactly one byte and the GPU has one.
    const peak = (arch.weightBytes === 1 && hw.tFlopsFP8 > 0 ? hw.tFlopsFP8 : hw.tFlopsPeak) * 1e12;
    this.prefillRate = peak * hw.mfuPrefill;
    this.decodeRate = peak * hw.mfuDecode;
    this.bandwidth = hw.bwPeakTBs * 1e12;
  }

  queueingTime(_inputLen: number): number {
    return 0;
  }

  outputTokenProcessingTime(): number {
    return 0;
  }

  postDecodeOverhead(): number {
    return 0;
  }

  /**
   * Weight bytes read in a pass over `tokens` new tokens: all attention and dense-MLP weights,
   * plus the expected number of distinct routed experts nEff = N·(1 − ((N − k)/N)^T).
   */
  weightBytes(tokens: number): number {
    let moe = 0;
    if (this.nMoe > 0) {
      const nEff = tokens <= 0 ? 0 : this.numExperts * (1 - Math.pow(this.missRatio, tokens));
      moe = this.moeMlp * nEff * this.nMoe;
    }
    return (this.attnWeights + moe + this.denseWeights) * this.wb;
  }

  /** GEMM + vector FLOPs of one request with context s and n new tokens (before ÷ tp). */
  requestFlops(s: number, n: number): number {
    const { L, d } = this;
    const qkv = 2 * n * this.qkvFactor;
    const proj = 2 * n * d * d;
    const ctx = n > 1 ? s + (n - 1) / 2 : s;
    const attn = this.attnHeads * n * ctx * this.dh;
    const vector = this.vecHeads * n * ctx + 2 * n * d;
    let mlp = 0;
    if (this.nMoe > 0) mlp += 2 * n * this.moeMlp * this.topK * this.nMoe;
    if (this.nDense > 0) mlp += 2 * n * this.denseMlp * this.nDense;
    const gemm = (qkv + proj) * L + attn * L + mlp;
    return gemm + vector * L;
  }

  /**
   * KV written + KV read + activations of one request, taken as (total − weights) with
   * total = weights + written + read + activations, where the weights are those of a pass
   * over the request's own n tokens (the reference's rounding). Before ÷ tp.
   */
  requestDynamicBytes(s: number, n: number): number {
    const w = this.nMoe > 0 && n !== 1 ? this.weightBytes(n) : this.weightsOneToken;
    const total = w + this.kvPerToken * n + this.kvPerToken * s + this.actPerToken * n;
    return total - w;
  }

  /**
   * Only requests with new tokens take part (the engine's current rule). Prefills (PI below the
   * prompt length) count their NumNewTokens; decodes (with output) count one token whatever
   * NumNewTokens says; anything else adds nothing. An empty step costs 1 tick.
   */
  stepTime(batch: readonly StepRequestView[], count: number): number {
    const tp = this.tp;
    let compute = 0;
    let dynamic = 0;
    let tokens = 0;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      const n = r.numNewTokens;
      if (n === 0) continue;
      const s = r.pi;
      if (s < r.inputLen) {
        compute += this.requestFlops(s, n) / tp / this.prefillRate;
        dynamic += this.requestDynamicBytes(s, n) / tp;
        tokens += n;
      } else if (r.outputLen > 0) {
        compute += this.requestFlops(s, 1) / tp / this.decodeRate;
        dynamic += this.requestDynamicBytes(s, 1) / tp;
        tokens += 1;
      }
    }
    if (tokens === 0) return 1;
    const weights = (this.nMoe > 0 ? this.weightBytes(tokens) : this.weightsOneToken) / tp;
    const memory = (weights + dynamic) / this.bandwidth;
    const micros = Math.max(compute, memory) * 1e6;
    if (Number.isNaN(micros) || micros >= MAX_TICKS) return MAX_TICKS;
    const t = Math.trunc(micros);
    return t < 1 ? 1 : t;
  }
}

// Trained-physics step-time model (docs/latency.md "Trained physics"): roofline-shaped basis
// functions in µs, each scaled by a fitted β, plus per-layer, per-request and per-step overheads.
// Every product is evaluated left to right as BLIS writes it, so step times match
// the reference to the tick.

import { ConstructionError } from "../util/errors.js";
import { isMoe, layerSplit, type ArchConfig } from "./archConfig.js";
import type { HardwareCalib } from "./hardwareConfig.js";
import type { LatencyModel, StepRequestView } from "./model.js";

export const MOE_COMM_BACKENDS = [
  "naive",
  "allgather_reducescatter",
  "pplx",
  "deepep_high_throughput",
  "deepep_low_latency",
  "mori",
  "flashinfer_all2allv",
] as const;
const ALL_TO_ALL = new Set(["pplx", "deepep_high_throughput", "deepep_low_latency", "mori", "flashinfer_all2allv"]);

/** Terms beyond the bundled form (docs/calibration.md "Extra terms"). */
export interface ExtraTerms {
  /** µs per layer per 1000 tokens of decode context (Σ PI over the decode requests of a step, per DP rank). */
  decode_context?: number | undefined;
}

/**
 * Number of step-time features: the 11 β terms in β order (T_pf_compute, T_dc_compute, T_weight,
 * TP all-reduce, L, B, 1, n_moe, T_pf_kv, T_dc_kv, T_moe_dispatch), then the extra terms.
 */
export const NUM_FEATURES = 12;
export const FEATURE_NAMES = [
  "beta1a",
  "beta2a",
  "beta3",
  "beta4",
  "beta5",
  "beta6",
  "beta7",
  "beta8",
  "beta1b",
  "beta2b",
  "beta_ep",
  "decode_context",
] as const;

/** A model whose step time is linear in its coefficients, for fitting. */
export interface FeatureModel {
  /** Writes the step's features (µs per unit coefficient) into out[0..NUM_FEATURES). */
  stepFeatures(batch: readonly StepRequestView[], count: number, out: Float64Array): void;
}

export interface TrainedPhysicsParams {
  alpha: readonly number[];
  beta: readonly number[];
  extra?: ExtraTerms;
  tp: number;
  /** Data-parallel ranks one instance stands for (MoE only). */
  dp: number;
  /** "" = allgather_reducescatter. */
  moeCommBackend: string;
}

const MAX_TICKS = 2 ** 63; // int64 max as a double

/** Checks α and β as the reference constructor does (docs/behavior.md#c22). */
export function validateTrainedCoeffs(name: "AlphaCoeffs" | "BetaCoeffs", xs: readonly number[]): void {
  xs.forEach((c, i) => {
    if (Number.isNaN(c)) throw new ConstructionError(`latency model: ${name}[${i}] is NaN`);
    if (!Number.isFinite(c)) throw new ConstructionError(`latency model: ${name}[${i}] is Inf`);
    if (c < 0) throw new ConstructionError(`latency model: ${name}[${i}] must be non-negative, got ${c.toFixed(6)}`);
  });
}

function validate(arch: ArchConfig, hw: HardwareCalib, p: TrainedPhysicsParams): void {
  if (p.alpha.length < 3) {
    throw new ConstructionError(`latency model: AlphaCoeffs requires at least 3 elements, got ${p.alpha.length}`);
  }
  validateTrainedCoeffs("AlphaCoeffs", p.alpha);
  if (p.beta.length < 7) {
    throw new ConstructionError(
      `trained-physics model: BetaCoeffs requires at least 7 elements, got ${p.beta.length} (expected β₁-β₇, optionally β₈)`,
    );
  }
  if (p.moeCommBackend !== "" && !(MOE_COMM_BACKENDS as readonly string[]).includes(p.moeCommBackend)) {
    throw new ConstructionError(
      `trained-physics model: unknown MoE comm backend "${p.moeCommBackend}" (valid: [${MOE_COMM_BACKENDS.join(" ")}])`,
    );
  }
  const fail = (m: string): never => {
    throw new ConstructionError(`trained-physics model: ${m}`);
  };
  if (!(p.tp > 0)) fail(`TP must be > 0, got ${p.tp}`);
  const dims: [string, number][] = [
    ["NumLayers", arch.numLayers],
    ["NumHeads", arch.numHeads],
    ["HiddenDim", arch.hiddenSize],
    ["IntermediateDim", arch.intermediateSize],
  ];
  for (const [k, v] of dims) if (!(v > 0)) fail(`${k} must be > 0, got ${v}`);
  if (arch.numHeads % p.tp !== 0) fail(`NumHeads (${arch.numHeads}) must be divisible by TP (${p.tp})`);
  if (arch.numKvHeads % p.tp !== 0) fail(`NumKVHeads (${arch.numKvHeads}) must be divisible by TP (${p.tp})`);
  const positive = (v: number): boolean => Number.isFinite(v) && v > 0;
  if (!positive(hw.tFlopsPeak)) fail(`TFlopsPeak must be valid positive, got ${hw.tFlopsPeak}`);
  if (!positive(hw.bwPeakTBs)) fail(`BwPeakTBs must be valid positive, got ${hw.bwPeakTBs}`);
  if (!positive(arch.activationBytes)) {
    fail(`BytesPerParam (activation dtype width) must be valid positive, got ${arch.activationBytes}`);
  }
  if (isMoe(arch) && arch.expertsPerTok <= 0) {
    fail(`MoE config invalid - NumLocalExperts=${arch.numExperts} but NumExpertsPerTok must be > 0`);
  }
  validateTrainedCoeffs("BetaCoeffs", p.beta);
}

export class TrainedPhysicsLatencyModel implements LatencyModel, FeatureModel {
  readonly timeline = "current" as const;
  private readonly queueing: number;
  private readonly outputProcessing: number;
  private readonly postDecode: number;
  // β, by role.
  private readonly b1a: number;
  private readonly b2a: number;
  private readonly b1b: number;
  private readonly b2b: number;
  private readonly splitPrefill: boolean;
  private readonly splitDecode: boolean;
  private readonly b4: number;
  private readonly bEp: number;
  // Batch-independent terms: β3·T_weight, β5·L, β7, β8·n_moe (interleaved MoE only).
  private readonly weightTerm: number;
  /** T_weight (µs), and whether β8 applies to this model (features for fitting). */
  private readonly weightSeconds: number;
  private readonly interleavedMoe: boolean;
  private readonly layerTerm: number;
  private readonly stepTerm: number;
  private readonly moeLayerTerm: number;
  private readonly b6: number;
  /** Extra term: decode context (0 = off, and then the sum is the reference's exactly). */
  private readonly bCtx: number;
  // Shape constants.
  private readonly L: number;
  private readonly d: number;
  private readonly headsPerTp: number;
  private readonly dh: number;
  private readonly dp: number;
  private readonly tpdp: number;
  /** d_kv = H_kv · d_h. */
  private readonly dkv: number;
  private readonly F: number;
  private readonly W: number;
  private readonly nMoe: number;
  private readonly nDense: number;
  private readonly k: number;
  private readonly g: number;
  private readonly fMoe: number;
  private readonly fSh: number;
  private readonly fDense: number;
  private readonly ab: number;
  private readonly tp: number;
  private readonly moeReduce: boolean;
  private readonly dispatch: boolean;
  private readonly dispatchTopK: number;

  constructor(arch: ArchConfig, hw: HardwareCalib, p: TrainedPhysicsParams) {
    validate(arch, hw, p);
    const beta = (i: number): number => p.beta[i] ?? 0;
    const n = p.beta.length;
    this.queueing = Math.trunc(p.alpha[0]!);
    this.postDecode = Math.trunc(p.alpha[1]!);
    this.outputProcessing = Math.trunc(p.alpha[2]!);
    this.b1a = beta(0);
    this.b2a = beta(1);
    this.b1b = beta(8);
    this.b2b = beta(9);
    this.splitPrefill = n >= 9;
    this.splitDecode = n >= 10;
    this.b4 = beta(3);
    this.bEp = n >= 11 ? beta(10) : beta(3);
    this.b6 = beta(5);
    this.bCtx = p.extra?.decode_context ?? 0;

    const moe = isMoe(arch);
    const split = layerSplit(arch);
    this.L = arch.numLayers;
    this.d = arch.hiddenSize;
    this.tp = p.tp;
    this.dp = p.dp;
    this.tpdp = p.tp * p.dp;
    this.headsPerTp = arch.numHeads / p.tp;
    this.dh = Math.floor(arch.hiddenSize / arch.numHeads);
    this.dkv = arch.numKvHeads * this.dh;
    const fp8 = arch.weightBytes === 1 && hw.tFlopsFP8 > 0;
    this.F = (fp8 ? hw.tFlopsFP8 : hw.tFlopsPeak) * 1e6;
    this.W = hw.bwPeakTBs * 1e6;
    this.nMoe = split.nMoe;
    this.nDense = split.nDense;
    this.k = Math.max(1, arch.expertsPerTok);
    this.g = moe ? p.tp * p.dp : p.tp;
    this.fMoe = arch.moeIntermediateSize;
    this.fSh = arch.sharedExpertSize;
    this.fDense = arch.denseIntermediateSize;
    this.ab = arch.activationBytes;
    this.moeReduce = moe && this.nMoe > 0 && p.dp === 1 && p.tp > 1;
    this.dispatch = moe && p.dp > 1;
    this.dispatchTopK = ALL_TO_ALL.has(p.moeCommBackend) ? this.k : 1;

    this.weightSeconds = this.weightTime(arch.numExperts, arch.weightBytes);
    this.interleavedMoe = split.interleaved;
    this.weightTerm = beta(2) * this.weightSeconds;
    this.layerTerm = beta(4) * this.L;
    this.stepTerm = beta(6);
    this.moeLayerTerm = split.interleaved && n >= 8 ? beta(7) * this.nMoe : 0;
  }

  private weightTime(numExperts: number, wb: number): number {
    const { L, d, dkv, tp, g } = this;
    let bytes = (L * d * (2 * d + 2 * dkv) * wb) / tp;
    if (this.nMoe > 0) bytes += this.nMoe * (numExperts / g) * 3 * d * this.fMoe * wb;
    if (this.nMoe > 0 && this.fSh > 0) bytes += (this.nMoe * 3 * d * this.fSh * wb) / tp;
    if (this.nDense > 0) bytes += (this.nDense * 1 * 3 * d * this.fDense * wb) / tp;
    return bytes / this.W;
  }

  /** FFN FLOPs for x tokens: routed experts (balanced placement), shared experts, dense layers. */
  private ffnFlops(x: number): number {
    const d = this.d;
    let f = 0;
    if (this.nMoe > 0) f += this.nMoe * ((x * this.k) / this.g) * 6 * d * this.fMoe;
    if (this.nMoe > 0 && this.fSh > 0) f += (this.nMoe * x * 6 * d * this.fSh) / this.tpdp;
    if (this.nDense > 0) f += (this.nDense * x * 1 * 6 * d * this.fDense) / this.tpdp;
    return f;
  }

  /** V(u): a ring all-reduce of the step's tokens over u layers. */
  private allReduce(u: number, tokens: number): number {
    const tp = this.tp;
    if (tp <= 1) return 0;
    return (u * tokens * this.d * this.ab * 2 * ((tp - 1) / tp)) / this.W;
  }

  queueingTime(): number {
    return this.queueing;
  }

  outputTokenProcessingTime(): number {
    return this.outputProcessing;
  }

  postDecodeOverhead(): number {
    return this.postDecode;
  }

  // Batch aggregates of the last aggregate() call (docs/latency.md "Trained physics").
  private aggP = 0;
  private aggD = 0;
  private aggS = 0;
  private aggApf = 0;

  /** Fills the aggregates of the scheduled requests in batch[0..count); returns B. */
  private aggregate(batch: readonly StepRequestView[], count: number): number {
    let P = 0;
    let D = 0;
    let S = 0;
    let B = 0;
    let Apf = 0;
    const attnCoef = 4 * this.headsPerTp;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      const n = r.numNewTokens;
      if (n <= 0) continue;
      B++;
      if (r.pi < r.inputLen) {
        P += n;
        // The attention context is the whole prompt for every chunk (docs/latency.md, quirk V1).
        Apf += attnCoef * n * (r.inputLen + n / 2) * this.dh;
      } else if (r.outputLen > 0) {
        // n > 1 only when the decode verifies speculative tokens (docs/speculative.md): token j sees PI + j.
        D += n;
        S += n * r.pi + (n * (n - 1)) / 2;
      }
    }
    this.aggP = P;
    this.aggD = D;
    this.aggS = S;
    this.aggApf = Apf;
    return B;
  }

  stepTime(batch: readonly StepRequestView[], count: number): number {
    const B = this.aggregate(batch, count);
    if (B === 0) return 1;
    return this.stepFromAggregates(this.aggP, this.aggD, this.aggS, B, this.aggApf);
  }

  /** A decode adds 1 to B and D and its PI to S (integer sums: order does not matter). */
  stepTimeWithDecodes(batch: readonly StepRequestView[], count: number, decodes: number, decodePis: number): number {
    const B = this.aggregate(batch, count) + decodes;
    if (B === 0) return 1;
    return this.stepFromAggregates(this.aggP, this.aggD + decodes, this.aggS + decodePis, B, this.aggApf);
  }

  /** The step time for batch aggregates (exposed for fitting and tests). */
  stepFromAggregates(P: number, D: number, S: number, B: number, Apf: number): number {
    const { L, d, dkv, tpdp, dp, F, W } = this;
    let pf = 0;
    if (P > 0) {
      const compute = ((L * 2 * P * d * (2 * d + 2 * dkv)) / tpdp + (L * Apf) / dp + this.ffnFlops(P)) / F;
      const kv = (L * 2 * (dkv / tpdp) * P * 2) / W;
      pf = this.splitPrefill ? this.b1a * compute + this.b1b * kv : this.b1a * Math.max(compute, kv);
    }
    let dc = 0;
    if (D > 0) {
      const attn = (L * 4 * this.headsPerTp * S * this.dh) / dp;
      const compute = ((L * 2 * D * d * (2 * d + 2 * dkv)) / tpdp + attn + this.ffnFlops(D)) / F;
      const kv = (L * 2 * (dkv / tpdp) * 2 * (S + D)) / W;
      dc = this.splitDecode ? this.b2a * compute + this.b2b * kv : this.b2a * Math.max(compute, kv);
    }
    const tokens = P + D;
    let comm = 0;
    if (this.tp > 1) {
      comm = this.allReduce(L, tokens) / dp + this.allReduce(this.nDense, tokens) / dp;
      if (this.moeReduce) comm += this.allReduce(this.nMoe, tokens);
    }
    let dispatch = 0;
    if (this.dispatch) {
      const g = this.g;
      const volume = ((((tokens / dp) * this.dispatchTopK * (g - 1)) / g) * 2 * d * this.ab) / W;
      dispatch = this.nMoe * volume;
    }
    // Summed in BLIS's order so that rounding matches the reference.
    let step =
      pf +
      dc +
      this.weightTerm +
      this.b4 * comm +
      this.bEp * dispatch +
      this.layerTerm +
      this.b6 * B +
      this.stepTerm +
      this.moeLayerTerm;
    if (this.bCtx > 0) step += this.bCtx * this.decodeContext(S);
    if (Number.isNaN(step) || step >= MAX_TICKS) return MAX_TICKS;
    const t = Math.trunc(step);
    return t < 1 ? 1 : t;
  }

  private decodeContext(S: number): number {
    return (this.L * S) / (1000 * this.dp);
  }

  stepFeatures(batch: readonly StepRequestView[], count: number, out: Float64Array): void {
    out.fill(0);
    const B = this.aggregate(batch, count);
    if (B === 0) return;
    const P = this.aggP;
    const D = this.aggD;
    const S = this.aggS;
    const Apf = this.aggApf;
    const { L, d, dkv, tpdp, dp, F, W } = this;
    if (P > 0) {
      out[0] = ((L * 2 * P * d * (2 * d + 2 * dkv)) / tpdp + (L * Apf) / dp + this.ffnFlops(P)) / F;
      out[8] = (L * 2 * (dkv / tpdp) * P * 2) / W;
    }
    if (D > 0) {
      const attn = (L * 4 * this.headsPerTp * S * this.dh) / dp;
      out[1] = ((L * 2 * D * d * (2 * d + 2 * dkv)) / tpdp + attn + this.ffnFlops(D)) / F;
      out[9] = (L * 2 * (dkv / tpdp) * 2 * (S + D)) / W;
      out[11] = this.decodeContext(S);
    }
    const tokens = P + D;
    if (this.tp > 1) {
      let comm = this.allReduce(L, tokens) / dp + this.allReduce(this.nDense, tokens) / dp;
      if (this.moeReduce) comm += this.allReduce(this.nMoe, tokens);
      out[3] = comm;
    }
    if (this.dispatch) {
      const g = this.g;
      out[10] = this.nMoe * (((((tokens / dp) * this.dispatchTopK * (g - 1)) / g) * 2 * d * this.ab) / W);
    }
    out[2] = this.weightSeconds;
    out[4] = L;
    out[5] = B;
    out[6] = 1;
    out[7] = this.interleavedMoe ? this.nMoe : 0;
  }
}

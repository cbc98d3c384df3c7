// Seed-era analytical roofline latency model of `--roofline` (docs/behavior.md#q21).
//
// Floating-point work follows the evaluation order of BLIS's formula literally (left to right,
// parentheses first), so results match BLIS bit for bit, rounding ties included.

import { ConstructionError } from "../util/errors.js";
import { AlphaTerms } from "./blackbox.js";
import type { HardwareCalib } from "./hardwareConfig.js";
import type { LatencyModel, StepRequestView } from "./model.js";
import type { ModelConfig } from "./modelConfig.js";

/** round(x): half away from zero, as Go's math.Round (Math.round differs for negative halves). */
export function roundHalfAwayFromZero(x: number): number {
  if (!Number.isFinite(x)) return x;
  let t = Math.trunc(x);
  // x − trunc(x) is exact in binary floating point.
  if (Math.abs(x - t) >= 0.5) t += x < 0 ? -1 : 1;
  return t + 0; // no negative zero
}

/** A float64 as Go's fmt %v prints it (used in validation messages). */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa, expText] = v.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
  }
  return String(v);
}

/** Per-request roofline terms for context s and n new tokens, before ÷ tp. */
export interface RooflineRequestTerms {
  gemmFlops: number;
  vectorFlops: number;
  /** Weight bytes of the whole model (charged once per phase present, not per request). */
  weightBytes: number;
  /** (activations + KV read + KV write + weights) − weights. */
  dynamicBytes: number;
}

/** Per-model constants; the methods are allocation-free. */
class RooflineShape {
  readonly nLayers: number;
  readonly d: number;
  readonly heads: number;
  readonly dHead: number;
  readonly dKV: number;
  readonly dFF: number;
  readonly b: number;
  /** d·d + 2·d·d_kv (the parenthesized QKV factor). */
  private readonly qkvFactor: number;
  /** 3·d·d_ff (the parenthesized MLP factor). */
  private readonly mlpFactor: number;
  /** 2·n_layers·H_kv·d_head·b (KV bytes per token, read or written). */
  private readonly kvBytesPerToken: number;
  /** n_layers·d·b (activation bytes per token, before × n). */
  private readonly activationPrefix: number;
  readonly weightBytes: number;

  constructor(m: ModelConfig) {
    this.nLayers = m.numLayers;
    this.d = m.hiddenSize;
    this.heads = m.numHeads;
    const kvHeads = m.numKVHeads !== 0 ? m.numKVHeads : m.numHeads;
    this.dHead = this.d / this.heads;
    this.dKV = kvHeads * this.dHead;
    this.dFF = m.intermediateSize > 0 ? m.intermediateSize : 4 * this.d;
    this.b = m.bytesPerParam;
    const d = this.d;
    this.qkvFactor = d * d + 2 * d * this.dKV;
    this.mlpFactor = 3 * d * this.dFF;
    this.kvBytesPerToken = 2 * this.nLayers * kvHeads * this.dHead * this.b;
    this.activationPrefix = this.nLayers * d * this.b;
    const weightsPerLayer = d * (d + 2 * this.dKV) + d * d + 3 * d * this.dFF;
    this.weightBytes = weightsPerLayer * this.nLayers * this.b;
  }

  /** ((qkv + proj)·L) + (attn·L) + (mlp·L). */
  gemmFlops(s: number, n: number): number {
    const L = this.nLayers;
    const d = this.d;
    const ctx = n <= 1 ? s : s + (n - 1) / 2;
    const qkv = 2 * n * this.qkvFactor;
    const proj = 2 * n * d * d;
    const attn = 4 * this.heads * n * ctx * this.dHead;
    const mlp = 2 * n * this.mlpFactor;
    return (qkv + proj) * L + attn * L + mlp * L;
  }

  /** (5·H·n·ctx + 2·n·d)·L. */
  vectorFlops(s: number, n: number): number {
    const ctx = n <= 1 ? s : s + (n - 1) / 2;
    return (5 * this.heads * n * ctx + 2 * n * this.d) * this.nLayers;
  }

  /** Total accumulated as activations + KV read + KV write + weights, then − weights. */
  dynamicBytes(s: number, n: number): number {
    const activations = this.activationPrefix * n;
    const kvRead = this.kvBytesPerToken * s;
    const kvWrite = this.kvBytesPerToken * n;
    let total = 0;
    total += activations;
    total += kvRead;
    total += kvWrite;
    total += this.weightBytes;
    return total - this.weightBytes;
  }
}

/**
 * The per-request quantities for a model shape (pure; for tests and diagnostics).
 * Example (llama-3.1-8b shape, s = 0, n = 512): GEMM 7215410839552, vector 803995648,
 * weights 13958643712 bytes, dynamic 201326592 bytes.
 */
export function rooflineRequestTerms(model: ModelConfig, s: number, n: number): RooflineRequestTerms {
  const shape = new RooflineShape(model);
  return {
    gemmFlops: shape.gemmFlops(s, n),
    vectorFlops: shape.vectorFlops(s, n),
    weightBytes: shape.weightBytes,
    dynamicBytes: shape.dynamicBytes(s, n),
  };
}

/** "ModelConfig.<name> must be > 0, got N" for an integer shape field that is not positive; else null. */
export function positiveIntProblem(name: string, v: number): string | null {
  return v > 0 ? null : `ModelConfig.${name} must be > 0, got ${v}`;
}

/** "<owner>.<name> must be a valid positive number, got X" unless v is finite and > 0; else null. */
export function positiveFloatProblem(owner: string, name: string, v: number): string | null {
  return v > 0 && Number.isFinite(v)
    ? null
    : `${owner}.${name} must be a valid positive number, got ${formatGoFloat(v)}`;
}

/** "HardwareCalib.<name> must be > 0 and finite when set, got X" for an optional field (0 = unset); else null. */
export function optionalHardwareProblem(name: string, v: number): string | null {
  return v === 0 || (v > 0 && Number.isFinite(v))
    ? null
    : `HardwareCalib.${name} must be > 0 and finite when set, got ${formatGoFloat(v)}`;
}

/** The non-null entries, in order. */
export function collectProblems(candidates: ReadonlyArray<string | null>): string[] {
  return candidates.filter((p): p is string => p !== null);
}

/**
 * The validation problems of a model/hardware pair, in BLIS's order; empty when valid.
 * Each reads "<ModelConfig|HardwareCalib>.<Field> must be …, got <value>".
 */
export function rooflineConfigProblems(model: ModelConfig, hw: HardwareCalib): string[] {
  return collectProblems([
    positiveIntProblem("NumHeads", model.numHeads),
    positiveIntProblem("NumLayers", model.numLayers),
    positiveIntProblem("HiddenDim", model.hiddenSize),
    positiveFloatProblem("ModelConfig", "BytesPerParam", model.bytesPerParam),
    positiveFloatProblem("HardwareCalib", "TFlopsPeak", hw.tFlopsPeak),
    positiveFloatProblem("HardwareCalib", "BwPeakTBs", hw.bwPeakTBs),
    positiveFloatProblem("HardwareCalib", "BwEffConstant", hw.bwEffConstant),
    positiveFloatProblem("HardwareCalib", "MfuPrefill", hw.mfuPrefill),
    positiveFloatProblem("HardwareCalib", "MfuDecode", hw.mfuDecode),
    optionalHardwareProblem("MemoryGiB", hw.memoryGiB),
  ]);
}

/**
 * Analytical step time (seed formula); alpha terms as for blackbox (docs/behavior.md
 * "Step time and request timelines"); beta is not used.
 */
export class RooflineLatencyModel implements LatencyModel {
  readonly timeline = "seed" as const;
  private readonly alpha: AlphaTerms;
  private readonly shape: RooflineShape;
  private readonly tp: number;
  /** F × mfuPrefill, F × mfuDecode, V = 0.10 × F, BW (all per second). */
  private readonly prefillFlopRate: number;
  private readonly decodeFlopRate: number;
  private readonly vectorRate: number;
  private readonly bandwidth: number;
  /** weights / tp. */
  private readonly weightBytesPerRank: number;
  /** layer_floor × 1e6 and comm × 1e6 (ticks) and TOverheadMicros. */
  private readonly layerFloorTicks: number;
  private readonly commTicks: number;
  private readonly overheadTicks: number;

  /**
   * Throws ConstructionError (BLIS's construction panic, exit 2), checked in this order: alpha
   * (docs/behavior.md#c22), "latency model: roofline requires TP > 0, got N", then every validation
   * problem joined with "; " after "latency model: invalid roofline config: ".
   */
  constructor(model: ModelConfig, hw: HardwareCalib, tp: number, alpha: readonly number[]) {
    this.alpha = new AlphaTerms(alpha);
    if (!(tp > 0)) throw new ConstructionError(`latency model: roofline requires TP > 0, got ${tp}`);
    const problems = rooflineConfigProblems(model, hw);
    if (problems.length > 0) {
      throw new ConstructionError(`latency model: invalid roofline config: ${problems.join("; ")}`);
    }
    this.shape = new RooflineShape(model);
    this.tp = tp;
    const F = hw.tFlopsPeak * 1e12;
    this.prefillFlopRate = F * hw.mfuPrefill;
    this.decodeFlopRate = F * hw.mfuDecode;
    this.vectorRate = 0.1 * F;
    this.bandwidth = hw.bwPeakTBs * 1e12 * hw.bwEffConstant;
    this.weightBytesPerRank = this.shape.weightBytes / tp;
    const L = this.shape.nLayers;
    const layerFloor = (L * hw.perLayerOverhead) / 1e6;
    const comm = tp > 1 ? (L * 2 * hw.allReduceLatency) / 1e6 : 0;
    this.layerFloorTicks = layerFloor * 1e6;
    this.commTicks = comm * 1e6;
    this.overheadTicks = hw.tOverheadMicros;
  }

  queueingTime(inputLen: number): number {
    return this.alpha.queueingTime(inputLen);
  }

  outputTokenProcessingTime(): number {
    return this.alpha.outputProcessing;
  }

  postDecodeOverhead(): number {
    return 0;
  }

  /** Step time of the seed formula; allocation-free. */
  stepTime(batch: readonly StepRequestView[], count: number): number {
    const shape = this.shape;
    const tp = this.tp;
    let pGemm = 0;
    let pVector = 0;
    let pDynamic = 0;
    let hasPrefill = false;
    let dGemm = 0;
    let dVector = 0;
    let dDynamic = 0;
    let hasDecode = false;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      const s = r.pi;
      if (s < r.inputLen) {
        const n = r.numNewTokens;
        hasPrefill = true;
        pGemm += shape.gemmFlops(s, n) / tp;
        pVector += shape.vectorFlops(s, n) / tp;
        pDynamic += shape.dynamicBytes(s, n) / tp;
      } else if (r.outputLen > 0) {
        hasDecode = true;
        dGemm += shape.gemmFlops(s, 1) / tp;
        dVector += shape.vectorFlops(s, 1) / tp;
        dDynamic += shape.dynamicBytes(s, 1) / tp;
      }
    }
    let computeP = 0;
    let memoryP = 0;
    if (hasPrefill) {
      computeP = pGemm / this.prefillFlopRate + pVector / this.vectorRate;
      memoryP = (this.weightBytesPerRank + pDynamic) / this.bandwidth;
    }
    let computeD = 0;
    let memoryD = 0;
    if (hasDecode) {
      computeD = dGemm / this.decodeFlopRate + dVector / this.vectorRate;
      memoryD = (this.weightBytesPerRank + dDynamic) / this.bandwidth;
    }
    const hardware = Math.max(computeP, memoryP) + Math.max(computeD, memoryD);
    return roundHalfAwayFromZero(hardware * 1e6 + this.layerFloorTicks + this.commTicks + this.overheadTicks);
  }
}

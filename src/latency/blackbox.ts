import { ConstructionError } from "../util/errors.js";
import type { LatencyModel, StepRequestView } from "./model.js";
import type { FeatureModel } from "./trainedPhysics.js";

/** Checks a coefficient list as BLIS's latency-model constructor does (docs/behavior.md#c22). */
export function validateCoefficients(name: "AlphaCoeffs" | "BetaCoeffs", coeffs: readonly number[]): void {
  if (coeffs.length < 3) {
    throw new ConstructionError(`latency model: ${name} requires at least 3 elements, got ${coeffs.length}`);
  }
  coeffs.forEach((c, i) => {
    if (Number.isNaN(c)) throw new ConstructionError(`latency model: ${name}[${i}] is NaN`);
    if (!Number.isFinite(c)) throw new ConstructionError(`latency model: ${name}[${i}] is Inf`);
  });
}

/**
 * Queueing and output-processing terms shared by both latency models (docs/behavior.md
 * "Step time and request timelines").
 */
export class AlphaTerms {
  readonly a0: number;
  readonly a1: number;
  readonly outputProcessing: number;
  constructor(alpha: readonly number[]) {
    validateCoefficients("AlphaCoeffs", alpha);
    this.a0 = alpha[0]!;
    this.a1 = alpha[1]!;
    this.outputProcessing = Math.trunc(alpha[2]!);
  }
  queueingTime(inputLen: number): number {
    return Math.trunc(this.a0 + this.a1 * inputLen);
  }
}

/**
 * Trained alpha/beta regression model (docs/latency.md "Backends"). Its features for fitting are
 * [1, P, D] in the first three slots (docs/calibration.md "Fit").
 */
export class BlackboxLatencyModel implements LatencyModel, FeatureModel {
  readonly timeline = "seed" as const;
  private readonly alpha: AlphaTerms;
  private readonly b0: number;
  private readonly b1: number;
  private readonly b2: number;

  constructor(alpha: readonly number[], beta: readonly number[]) {
    this.alpha = new AlphaTerms(alpha);
    validateCoefficients("BetaCoeffs", beta);
    this.b0 = beta[0]!;
    this.b1 = beta[1]!;
    this.b2 = beta[2]!;
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

  /** Prefill and decode token counts of the last `count()` call (reused, no allocation). */
  private prefill = 0;
  private decode = 0;

  /** P: new tokens of prefilling requests; D: of decoding ones with output (docs/behavior.md#q22). */
  private count(batch: readonly StepRequestView[], count: number): void {
    let prefill = 0;
    let decode = 0;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      if (r.pi < r.inputLen) prefill += r.numNewTokens;
      else if (r.outputLen > 0) decode += r.numNewTokens;
    }
    this.prefill = prefill;
    this.decode = decode;
  }

  stepTime(batch: readonly StepRequestView[], count: number): number {
    this.count(batch, count);
    return Math.trunc(this.b0 + this.b1 * this.prefill + this.b2 * this.decode);
  }

  /** A decode adds its one token to the decode count. */
  stepTimeWithDecodes(batch: readonly StepRequestView[], count: number, decodes: number): number {
    this.count(batch, count);
    return Math.trunc(this.b0 + this.b1 * this.prefill + this.b2 * (this.decode + decodes));
  }

  stepFeatures(batch: readonly StepRequestView[], count: number, out: Float64Array): void {
    this.count(batch, count);
    out.fill(0);
    out[0] = 1;
    out[1] = this.prefill;
    out[2] = this.decode;
  }
}

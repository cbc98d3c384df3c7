// Physical bounds on a step-time model (docs/latency.md "Physical bounds"): no GPU prefills faster
// than its dense peak FLOP/s allows, and no decode step is shorter than reading the weights once
// from HBM. A model presented as a prediction that breaks one gets a warning naming the factor.

import { isMoe, layerSplit, type ArchConfig } from "./archConfig.js";
import type { LatencyModel, StepRequestView } from "./model.js";

export interface GpuPeaks {
  /** Dense peak FLOP/s of one GPU in the weights' dtype. */
  flops: number;
  /** HBM bytes/s of one GPU. */
  bandwidth: number;
}

export interface BoundReport {
  /** Predicted prefill tokens/s over the bound (> 1 breaks it). */
  prefillFactor: number;
  /** The weight-read time over the predicted batch-1 decode step (> 1 breaks it). */
  decodeFactor: number;
  prefillTokensPerSecond: number;
  prefillBound: number;
  decodeStepUs: number;
  decodeBoundUs: number;
}

/** Parameters one token passes through outside the embedding and LM head (active experts only). */
export function activeLayerParams(a: ArchConfig): number {
  const d = a.hiddenSize;
  const dh = a.headDim > 0 ? a.headDim : Math.floor(d / a.numHeads);
  const attention = d * (a.numHeads + 2 * a.numKvHeads) * dh + a.numHeads * dh * d;
  const split = layerSplit(a);
  let p = a.numLayers * attention + split.nDense * 3 * d * (a.denseIntermediateSize || a.intermediateSize);
  if (isMoe(a)) {
    p +=
      split.nMoe *
      (Math.max(1, a.expertsPerTok) * 3 * d * a.moeIntermediateSize + 3 * d * a.sharedExpertSize + d * a.numExperts);
  }
  return p;
}

function view(pi: number, inputLen: number, outputLen: number, n: number): StepRequestView {
  return { pi, inputLen, outputLen, numNewTokens: n, computed: pi + n };
}

/** Prefill of `requests` fresh prompts of `len` tokens in one step: tokens per second. */
function prefillRate(model: LatencyModel, requests: number, len: number): number {
  const batch = Array.from({ length: requests }, () => view(0, len, 1, len));
  return (requests * len * 1e6) / model.stepTime(batch, batch.length);
}

export function checkBounds(model: LatencyModel, arch: ArchConfig, peaks: GpuPeaks, tp: number): BoundReport {
  const active = activeLayerParams(arch);
  const prefillBound = (peaks.flops * tp) / (2 * active);
  let best = 0;
  for (const [requests, len] of [
    [1, 1024],
    [2, 1024],
    [4, 2048],
    [8, 1024],
  ] as const) {
    best = Math.max(best, prefillRate(model, requests, len));
  }
  const lmHead = arch.hiddenSize * (arch.vocabSize > 0 ? arch.vocabSize : 0);
  const decodeBoundUs = (((active + lmHead) * arch.weightBytes) / (peaks.bandwidth * tp)) * 1e6;
  const decode = [view(128, 128, 64, 1)];
  const decodeStepUs = model.stepTime(decode, 1);
  return {
    prefillFactor: best / prefillBound,
    decodeFactor: decodeBoundUs / decodeStepUs,
    prefillTokensPerSecond: best,
    prefillBound,
    decodeStepUs,
    decodeBoundUs,
  };
}

/** One line per broken bound, empty when the model keeps both. */
export function boundViolations(r: BoundReport): string[] {
  const out: string[] = [];
  if (r.prefillFactor > 1) {
    out.push(
      `prefill ${Math.round(r.prefillTokensPerSecond)} tokens/s exceeds the dense-peak bound ` +
        `${Math.round(r.prefillBound)} tokens/s by ${r.prefillFactor.toFixed(2)}x`,
    );
  }
  if (r.decodeFactor > 1) {
    out.push(
      `batch-1 decode step ${r.decodeStepUs.toFixed(0)} µs is shorter than reading the weights from HBM ` +
        `(${r.decodeBoundUs.toFixed(0)} µs) by ${r.decodeFactor.toFixed(2)}x`,
    );
  }
  return out;
}

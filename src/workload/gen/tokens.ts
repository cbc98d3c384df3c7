// Token-ID drawing and the request object factory (one shape for every request: monomorphic).

import type { Rng } from "../../engine/rng.js";
import type { WorkloadRequest } from "../../core/workloadRequest.js";

export const TOKEN_VOCABULARY = 128000;

/** Largest single sampled length (tokens, or item count) we accept; beyond it is surely a mistake. */
export const MAX_SAMPLED_LENGTH = 1 << 27;
/** Largest token array of one request or one session buffer. */
export const MAX_TOKENS_PER_BUFFER = 1 << 29;

/** Shared zero-length token array (no prefix, unused scratch): avoids one buffer per client. */
export const EMPTY_TOKENS = new Int32Array(0);

/** Slab size of allocTokens, in token IDs (1 MiB). */
const SLAB_TOKENS = 1 << 18;
let slab = new Int32Array(0);
let slabUsed = 0;

/**
 * A zeroed token array of length n for one request. Small arrays are carved out of shared 1 MiB
 * slabs (a subarray view) instead of each getting its own ArrayBuffer: one backing store per few
 * hundred requests instead of one per request. A slab is freed when the last request cut from it
 * is gone; requests leave in roughly arrival order, so few slabs are live at a time.
 */
export function allocTokens(n: number): Int32Array {
  if (n > SLAB_TOKENS >> 3) return new Int32Array(n);
  if (slabUsed + n > slab.length) {
    slab = new Int32Array(SLAB_TOKENS);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + n);
  slabUsed += n;
  return out;
}

/** Draws one uniform token ID per slot of arr[start, end). */
export function fillTokens(rng: Rng, arr: Int32Array, start: number, end: number): void {
  rng.fillIntn(arr, start, end, TOKEN_VOCABULARY);
}

export interface RequestMeta {
  readonly tenantId: string;
  readonly sloClass: string;
  readonly model: string;
}

export function newRequest(
  meta: RequestMeta,
  arrival: number,
  tokens: Int32Array,
  inputLen: number,
  outputLen: number,
  streaming: boolean,
  sessionId: string,
  roundIndex: number,
  reasonRatio: number,
  textTokens: number,
  imageTokens: number,
  audioTokens: number,
  videoTokens: number,
): WorkloadRequest {
  return {
    id: "",
    arrival,
    tokens,
    inputLen,
    outputLen,
    sloClass: meta.sloClass,
    tenantId: meta.tenantId,
    model: meta.model,
    streaming,
    sessionId,
    roundIndex,
    reasonRatio,
    textTokens,
    imageTokens,
    audioTokens,
    videoTokens,
  };
}

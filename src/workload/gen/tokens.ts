// Token-ID drawing and the request object factory (one shape for every request: monomorphic).

import type { Rng } from "../../engine/rng.js";
import type { WorkloadRequest } from "../request.js";

export const TOKEN_VOCABULARY = 128000;

/** Largest single sampled length (tokens, or item count) we accept; beyond it is surely a mistake. */
export const MAX_SAMPLED_LENGTH = 1 << 27;
/** Largest token array of one request or one session buffer. */
export const MAX_TOKENS_PER_BUFFER = 1 << 29;

/** Shared zero-length token array (no prefix, unused scratch): avoids one buffer per client. */
export const EMPTY_TOKENS = new Int32Array(0);

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

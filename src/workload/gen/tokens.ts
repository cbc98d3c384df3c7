// Token-ID drawing and the request object factory (one shape for every request: monomorphic).

import type { Rng } from "../../engine/rng.js";
import { TOKEN_VOCABULARY, TokenSeq } from "../../core/tokenSeq.js";
import { SeqRequest } from "../../core/workloadRequest.js";

export { TOKEN_VOCABULARY };

/** Largest single sampled length (tokens, or item count) we accept; beyond it is surely a mistake. */
export const MAX_SAMPLED_LENGTH = 1 << 27;
/** Largest token array of one request or one session buffer. */
export const MAX_TOKENS_PER_BUFFER = 1 << 29;

/** Shared zero-length token array (no prefix): avoids one buffer per client. */
export const EMPTY_TOKENS = new Int32Array(0);

/** Draws one uniform token ID per slot of arr[start, end). */
export function fillTokens(rng: Rng, arr: Int32Array, start: number, end: number): void {
  rng.fillIntn(arr, start, end, TOKEN_VOCABULARY);
}

const NO_RUNS = new Int32Array(0);

/**
 * Token IDs `prefix` followed by `count` draws from rng. The stream moves past the draws as if
 * they were made; the IDs are redrawn only when needed. `ownDraws`: no other request's sequence
 * will hold these draws, so everything after the prefix is private (TokenSeq.privateFrom).
 */
export function drawnTokens(rng: Rng, prefix: Int32Array, count: number, ownDraws = false): TokenSeq {
  const length = prefix.length + count;
  const privateFrom = ownDraws ? prefix.length : length;
  const seq = new TokenSeq(
    length,
    prefix,
    count,
    rng.word(0),
    rng.word(1),
    rng.word(2),
    rng.word(3),
    NO_RUNS,
    0,
    0,
    privateFrom,
  );
  rng.skip(count);
  return seq;
}

export interface RequestMeta {
  readonly tenantId: string;
  readonly sloClass: string;
  readonly model: string;
  /** The client's TTFT target for `slo-deadline` dispatch, µs (absent or 0 = none). */
  readonly sloTargetUs?: number;
  /** LoRA adapter ("" or absent = none). */
  readonly adapter?: string;
}

export function newRequest(
  meta: RequestMeta,
  arrival: number,
  tokens: TokenSeq,
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
): SeqRequest {
  const r = new SeqRequest(
    arrival,
    tokens,
    inputLen,
    outputLen,
    meta.sloClass,
    meta.tenantId,
    meta.model,
    streaming,
    sessionId,
    roundIndex,
    reasonRatio,
    textTokens,
    imageTokens,
    audioTokens,
    videoTokens,
  );
  if (meta.sloTargetUs !== undefined && meta.sloTargetUs > 0) r.sloTargetUs = meta.sloTargetUs;
  if (meta.adapter !== undefined) r.adapter = meta.adapter;
  return r;
}

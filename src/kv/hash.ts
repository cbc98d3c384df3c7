// Content hash chain for KV blocks.
//
// A full block's hash identifies the whole token sequence from position 0 through the end of
// that block (docs/behavior.md "KV cache"). We get that with a chain: a block's lanes start from
// the previous block's hash, mix in the block's tokens, and finalize to a 53-bit integer (exact in
// a double, so it can key the hash index without string building). Two 32-bit lanes keep collisions
// negligible. Lanes stay int32 (`| 0`) so that V8 keeps the mixing loop in integer registers.

import { NO_HASH } from "../core/blockHash.js";

export { NO_HASH };

const SEED_A = 0x243f6a88 | 0;
const SEED_B = 0x85a308d3 | 0;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** Lane A initial value for the block that follows a block with hash `prev` (NO_HASH = first block). */
export function initLaneA(prev: number): number {
  if (prev === NO_HASH) return SEED_A;
  // `prev ^ x` and `prev | 0` take prev's low 32 bits (ToInt32 reduces modulo 2^32).
  return fmix32(prev ^ SEED_A) ^ Math.floor(prev / 4294967296);
}

export function initLaneB(prev: number): number {
  if (prev === NO_HASH) return SEED_B;
  return fmix32(Math.floor(prev / 4294967296) ^ SEED_B) ^ (prev | 0);
}

export function mixA(a: number, token: number): number {
  a = Math.imul(a ^ token, 0xcc9e2d51);
  return (Math.imul((a << 15) | (a >>> 17), 0x1b873593) + 0x52dce729) | 0;
}

export function mixB(b: number, token: number): number {
  b = Math.imul(b ^ token, 0x1b873593);
  return (Math.imul((b << 13) | (b >>> 19), 5) + 0xe6546b64) | 0;
}

/** 53-bit non-negative block hash from the two lanes. */
export function finalizeHash(a: number, b: number): number {
  const x = fmix32(a ^ Math.imul(b, 0x9e3779b1));
  const y = fmix32(b ^ x);
  return (x >>> 11) * 4294967296 + (y >>> 0);
}

/** Hash of the full block tokens[start .. start + blockSize) that follows a block with hash `prev`. */
export function blockHash(tokens: Int32Array, start: number, blockSize: number, prev: number): number {
  let a = initLaneA(prev);
  let b = initLaneB(prev);
  const end = start + blockSize;
  for (let p = start; p < end; p++) {
    const t = tokens[p]!;
    a = mixA(a, t);
    b = mixB(b, t);
  }
  return finalizeHash(a, b);
}

/** Hash chain of the full blocks of tokens[0 .. count): one hash per complete block. */
export function blockHashChain(tokens: Int32Array, count: number, blockSize: number): Float64Array {
  const k = Math.floor(count / blockSize);
  const out = new Float64Array(k);
  let prev = NO_HASH;
  for (let i = 0; i < k; i++) {
    prev = blockHash(tokens, i * blockSize, blockSize, prev);
    out[i] = prev;
  }
  return out;
}

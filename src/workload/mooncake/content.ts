// Token content of trace requests (docs/traces.md "Content and sharing"): a hash id stands for the
// same tokens wherever it appears, as a run of draws whose start state is a function of the id
// alone, so equal ids give equal KV block hashes and prefix-cache hits without any token being
// drawn (kv/seqHash.ts mixes such a run in by its state, offset and count).

import { RUN_WORDS } from "../../engine/rng.js";
import type { MooncakeTrace } from "./trace.js";

/** murmur3's 32-bit finalizer: a bijection on 32-bit words. */
function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

const TWO_POW_32 = 4294967296;

/**
 * Writes the run of hash id `id` (a safe non-negative integer), `len` tokens long, at
 * runs[at .. at + RUN_WORDS). Words 0 and 1 are bijections of the id's low and high 32 bits, so
 * distinct ids never share a start state; the high word is below 2^21, so word 1 is never 0 and
 * the xoshiro state never all zero.
 */
export function writeIdRun(runs: Int32Array, at: number, id: number, len: number): void {
  const lo = (id % TWO_POW_32) | 0;
  const hi = Math.floor(id / TWO_POW_32) | 0;
  runs[at] = fmix32(lo);
  runs[at + 1] = fmix32(hi ^ 0x5bd1e995);
  runs[at + 2] = fmix32(lo ^ 0x27d4eb2f);
  runs[at + 3] = fmix32(hi ^ 0x165667b1);
  runs[at + RUN_WORDS - 1] = len;
}

/**
 * Per request, the index of its first hash id that no other line of the trace holds (the id
 * count when there is none): from there on its prompt is content no other request can ask for
 * (TokenSeq.privateFrom). Ids are counted over the whole trace through one sorted copy.
 */
export function firstPrivateIds(t: MooncakeTrace): Int32Array {
  const sorted = t.ids.slice().sort();
  // The ids that occur more than once, ascending.
  const repeated: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1] && (repeated.length === 0 || repeated[repeated.length - 1] !== sorted[i])) repeated.push(sorted[i]!);
  }
  const shared = Float64Array.from(repeated);
  const out = new Int32Array(t.count);
  for (let r = 0; r < t.count; r++) {
    const a = t.idStart[r]!;
    const b = t.idStart[r + 1]!;
    let j = a;
    while (j < b && contains(shared, t.ids[j]!)) j++;
    out[r] = j - a;
  }
  return out;
}

function contains(sorted: Float64Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] === x;
}

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

/** Largest id counted in a byte per id value; traces with larger ids are counted by sorting. */
const DENSE_ID_LIMIT = 1 << 26;

/**
 * Per request, the index of its first hash id that no other line of the trace holds (the id
 * count when there is none): from there on its prompt is content no other request can ask for
 * (TokenSeq.privateFrom). Ids are counted over the whole trace: in a byte per id value when the
 * ids are below 2^26 (the published traces number their blocks densely from 0), else through one
 * sorted copy.
 */
export function firstPrivateIds(t: MooncakeTrace): Int32Array {
  let max = 0;
  for (let i = 0; i < t.ids.length; i++) if (t.ids[i]! > max) max = t.ids[i]!;
  const shared = max < DENSE_ID_LIMIT ? denseShared(t.ids, max) : sortedShared(t.ids);
  const out = new Int32Array(t.count);
  for (let r = 0; r < t.count; r++) {
    const a = t.idStart[r]!;
    const b = t.idStart[r + 1]!;
    let j = a;
    while (j < b && shared(t.ids[j]!)) j++;
    out[r] = j - a;
  }
  return out;
}

/** Occurrences per id value, saturating at 2. */
function denseShared(ids: Float64Array, max: number): (id: number) => boolean {
  const count = new Uint8Array(max + 1);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (count[id]! < 2) count[id]!++;
  }
  return (id) => count[id] === 2;
}

/** The ids that occur more than once, ascending, searched by bisection. */
function sortedShared(ids: Float64Array): (id: number) => boolean {
  const sorted = ids.slice().sort();
  const repeated: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1] && (repeated.length === 0 || repeated[repeated.length - 1] !== sorted[i]))
      repeated.push(sorted[i]!);
  }
  const shared = Float64Array.from(repeated);
  return (x) => {
    let lo = 0;
    let hi = shared.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (shared[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo < shared.length && shared[lo] === x;
  };
}

// Hash chains of recently hashed sequence prefixes, by a description of their content
// (kv/seqHash.ts): the requests that open with the same document or system prompt all hash the same
// blocks, and at 16-token blocks a 4,000-token document is 256 block hashes per request. A chain is
// kept only once its description is seen a second time, so workloads whose prompts are all
// different keep nothing but a digest per slot.

import { mixA } from "./hash.js";

/**
 * Direct-mapped slots, chosen by the low bits of a description's digest. Two documents that share
 * a slot push each other out at every request: with 40 documents in 256 slots, one request in
 * twelve hashed its prefix afresh; 1,024 slots keep at most 1,024 chains, a few MB.
 */
const SLOTS = 1024;
const EMPTY_DESC = new Int32Array(0);
const EMPTY_CHAIN = new Float64Array(0);

export class ChainMemo {
  private readonly digest = new Int32Array(SLOTS);
  /** Per slot: 0 empty, 1 a description with this digest was seen (nothing kept), 2 its chain is kept. */
  private readonly state = new Uint8Array(SLOTS);
  private readonly desc: Int32Array[] = new Array<Int32Array>(SLOTS).fill(EMPTY_DESC);
  private readonly chain: Float64Array[] = new Array<Float64Array>(SLOTS).fill(EMPTY_CHAIN);
  /** The slot the last recall() missed in that is to keep the chain computed next, or -1. */
  private pending = -1;

  /**
   * Copies the chain of k block hashes of the prefix described by d[0 .. n) into out[0 .. k) and
   * returns true when it is kept; else notes the description for remember().
   */
  recall(d: Int32Array, n: number, out: Float64Array, k: number): boolean {
    const h = digestOf(d, n);
    const s = h & (SLOTS - 1);
    this.pending = -1;
    if (this.state[s] !== 0 && this.digest[s] === h) {
      const kept = this.chain[s]!;
      if (this.state[s] === 2 && kept.length === k && sameDescription(this.desc[s]!, d, n)) {
        out.set(kept);
        return true;
      }
      this.pending = s;
      return false;
    }
    this.digest[s] = h;
    this.state[s] = 1;
    this.desc[s] = EMPTY_DESC;
    this.chain[s] = EMPTY_CHAIN;
    return false;
  }

  /**
   * After a missed recall() of d[0 .. n): keeps the chain out[0 .. k) computed for it if the description was seen
   * before.
   */
  remember(d: Int32Array, n: number, out: Float64Array, k: number): void {
    const s = this.pending;
    if (s < 0) return;
    this.pending = -1;
    this.state[s] = 2;
    this.desc[s] = d.slice(0, n);
    this.chain[s] = out.slice(0, k);
  }
}

function digestOf(d: Int32Array, n: number): number {
  let h = n;
  for (let i = 0; i < n; i++) h = mixA(h, d[i]!);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

function sameDescription(a: Int32Array, d: Int32Array, n: number): boolean {
  if (a.length !== n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== d[i]) return false;
  return true;
}

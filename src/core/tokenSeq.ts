// A request's token IDs, described instead of stored (docs/architecture.md "Hot-path memory
// layout"). Generated tokens are uniform draws from a client's xoshiro128** stream; keeping the
// 16-byte state a run of draws starts from is enough to redraw the same IDs whenever they are
// needed (KV block hashes, `blis observe`), so a waiting request holds no token array.

import { fillIntnFromState, RUN_WORDS } from "../engine/rng.js";

/** Token IDs are drawn uniformly from [0, TOKEN_VOCABULARY). */
export const TOKEN_VOCABULARY = 128000;

const NO_RUNS = new Int32Array(0);

/**
 * Literal leading tokens (a group prefix, or all IDs of a request built from explicit tokens),
 * then one run of draws kept inline (the four state words s0..s3 and its length; a request's own
 * input and output), then runs from a shared array of RUN_WORDS int32 per run (the four state
 * words, then the length): the rounds of a session use their slice of the session's runs (an
 * accumulated context is the first r + 1 runs, a fresh context run r alone), a multimodal request
 * keeps its output run there.
 */
export class TokenSeq {
  constructor(
    readonly length: number,
    readonly literal: Int32Array,
    /** Length of the inline run (0 = none). State words are int32: small integers to V8. */
    readonly runLen: number,
    readonly s0: number,
    readonly s1: number,
    readonly s2: number,
    readonly s3: number,
    readonly runs: Int32Array,
    readonly firstRun: number,
    readonly runCount: number,
    /**
     * First position of content that no other sequence holds (draws made for this sequence alone
     * and used by no other request), or `length` when there is none. A KV block holding any such
     * position can only ever be looked up by the request that owns it (kv/privateEntries.ts).
     */
    readonly privateFrom: number = length,
  ) {}

  /** The same tokens without a private part: for requests that share this sequence (PD sub-requests). */
  shared(): TokenSeq {
    if (this.privateFrom >= this.length) return this;
    return new TokenSeq(
      this.length,
      this.literal,
      this.runLen,
      this.s0,
      this.s1,
      this.s2,
      this.s3,
      this.runs,
      this.firstRun,
      this.runCount,
    );
  }

  /** A sequence of explicit token IDs (tests, callers that carry real IDs). */
  static of(tokens: Int32Array): TokenSeq {
    return new TokenSeq(tokens.length, tokens, 0, 0, 0, 0, 0, NO_RUNS, 0, 0);
  }

  /** Writes tokens [0, n) into out[0, n); n ≤ length. */
  fill(out: Int32Array, n: number): void {
    const lit = this.literal;
    const nl = lit.length < n ? lit.length : n;
    if (nl === lit.length) out.set(lit, 0);
    else out.set(lit.subarray(0, nl), 0);
    let pos = nl;
    if (this.runLen > 0 && pos < n) {
      const stop = pos + this.runLen < n ? pos + this.runLen : n;
      inline[0] = this.s0;
      inline[1] = this.s1;
      inline[2] = this.s2;
      inline[3] = this.s3;
      fillIntnFromState(inline, 0, out, pos, stop, TOKEN_VOCABULARY);
      pos = stop;
    }
    const runs = this.runs;
    const end = (this.firstRun + this.runCount) * RUN_WORDS;
    for (let k = this.firstRun * RUN_WORDS; k < end && pos < n; k += RUN_WORDS) {
      const len = runs[k + 4]!;
      const stop = pos + len < n ? pos + len : n;
      fillIntnFromState(runs, k, out, pos, stop, TOKEN_VOCABULARY);
      pos = stop;
    }
  }

  /** All token IDs in a fresh array. */
  toArray(): Int32Array {
    const out = new Int32Array(this.length);
    this.fill(out, this.length);
    return out;
  }
}

const inline = new Int32Array(RUN_WORDS);

let scratch = new Int32Array(1024);

/**
 * Tokens [0, n) of seq in a buffer shared by every caller: valid until the next call, never to be
 * kept.
 */
export function scratchTokens(seq: TokenSeq, n: number): Int32Array {
  if (scratch.length < n) scratch = new Int32Array(Math.max(n, scratch.length * 2));
  seq.fill(scratch, n);
  return scratch;
}

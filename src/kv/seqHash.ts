// Block hashes of a described token sequence (core/tokenSeq.ts) without drawing its token IDs.
//
// A block's content is cut into pieces: literal IDs, and stretches of runs of draws. Literal IDs
// are mixed in one by one, exactly as kv/hash.ts blockHash does. A stretch of MIN_SYMBOLIC or
// more draws is mixed in as what it is (the run's start state, the offset and the count) instead
// of its IDs: two such stretches have equal IDs when they are the same draws of the same stream,
// and otherwise only by a coincidence of at least 4 uniform draws out of 128,000 (below 1e-20,
// less likely than a collision of the 53-bit hashes themselves). Shorter stretches (where a run
// meets a block boundary) are redrawn and mixed in by content: a few random IDs after a shared
// prefix do coincide now and then, and such a block must then match exactly as its IDs say.
// Literal IDs are assumed not to be copies of drawn runs (they are group prefixes drawn from other
// streams, or explicit IDs of requests that have no runs).

import { NO_HASH } from "../core/blockHash.js";
import { scratchTokens, TOKEN_VOCABULARY, type TokenSeq } from "../core/tokenSeq.js";
import { fillIntnFromState, RUN_WORDS, skipState } from "../engine/rng.js";
import { blockHash, blockHashChain, finalizeHash, initLaneA, initLaneB, mixA, mixB } from "./hash.js";
import { grownInt32 as grownI } from "../core/typedArrays.js";
import { ChainMemo } from "./chainMemo.js";

/** Shortest stretch of a run mixed in by its description rather than its IDs. */
export const MIN_SYMBOLIC = 4;
/** Opens a described stretch in the mixed stream; token IDs are below 2^17, so never equal it. */
const RUN_MARK = 0x40000000;

/**
 * The pieces of the sequence being hashed, in sequence order (reused). A piece with
 * pieceIsRun[i] = 0 is the literal IDs; otherwise its start state is runWords[4·i .. 4·i + 4) and
 * runKey[2·i], runKey[2·i + 1] digest it for lanes A and B.
 */
let pieceStart: Int32Array = new Int32Array(8);
let pieceLen: Int32Array = new Int32Array(8);
let pieceIsRun: Uint8Array = new Uint8Array(8);
let runWords: Int32Array = new Int32Array(32);
let runKey: Int32Array = new Int32Array(16);
let pieces = 0;
let literal: Int32Array = new Int32Array(0);
/** Piece holding the position the last windowHash call ended at (blocks come in order). */
let cursor = 0;
const state = new Int32Array(4);
/**
 * chain[0]: the hash windowHash chains on, replaced by the hash it computes. A double returned
 * from (or passed to) a call that is not inlined is boxed into a new heap number: one per block.
 */
const chain = new Float64Array(1);
const drawn = new Int32Array(MIN_SYMBOLIC);

function addPiece(start: number, len: number, isRun: boolean): void {
  if (pieces === pieceStart.length) {
    const cap = pieces * 2;
    pieceStart = grownI(pieceStart, cap);
    pieceLen = grownI(pieceLen, cap);
    const r = new Uint8Array(cap);
    r.set(pieceIsRun);
    pieceIsRun = r;
    runWords = grownI(runWords, cap * 4);
    runKey = grownI(runKey, cap * 2);
  }
  pieceStart[pieces] = start;
  pieceLen[pieces] = len;
  pieceIsRun[pieces] = isRun ? 1 : 0;
  pieces++;
}

/** Records piece i as a run starting from state words w0..w3. */
function setRun(i: number, w0: number, w1: number, w2: number, w3: number): void {
  runWords[4 * i] = w0;
  runWords[4 * i + 1] = w1;
  runWords[4 * i + 2] = w2;
  runWords[4 * i + 3] = w3;
  runKey[2 * i] = mixA(mixA(mixA(mixA(RUN_MARK, w0), w1), w2), w3);
  runKey[2 * i + 1] = mixB(mixB(mixB(mixB(RUN_MARK, w0), w1), w2), w3);
}

/** Loads the piece table of seq. */
function loadPieces(seq: TokenSeq): void {
  pieces = 0;
  cursor = 0;
  literal = seq.literal;
  let pos = 0;
  if (literal.length > 0) {
    addPiece(0, literal.length, false);
    pos = literal.length;
  }
  if (seq.runLen > 0) {
    setRun(pieces, seq.s0, seq.s1, seq.s2, seq.s3);
    addPiece(pos, seq.runLen, true);
    pos += seq.runLen;
  }
  const runs = seq.runs;
  const end = (seq.firstRun + seq.runCount) * RUN_WORDS;
  for (let k = seq.firstRun * RUN_WORDS; k < end; k += RUN_WORDS) {
    const len = runs[k + 4]!;
    if (len <= 0) continue;
    setRun(pieces, runs[k]!, runs[k + 1]!, runs[k + 2]!, runs[k + 3]!);
    addPiece(pos, len, true);
    pos += len;
  }
}

/**
 * Hash of the block of positions [start, start + blockSize), all inside the loaded sequence,
 * chained on chain[0], into chain[0]. Starts looking for the block's first piece at the cursor.
 */
function windowHash(start: number, blockSize: number): void {
  const starts = pieceStart;
  const lens = pieceLen;
  const isRun = pieceIsRun;
  const prev = chain[0]!;
  let a = initLaneA(prev);
  let b = initLaneB(prev);
  let p = cursor;
  if (p >= pieces || starts[p]! > start) p = 0;
  while (starts[p]! + lens[p]! <= start) p++;
  const end = start + blockSize;
  let pos = start;
  while (pos < end) {
    const ps = starts[p]!;
    const pe = ps + lens[p]!;
    const j = pos - ps;
    const c = (pe < end ? pe : end) - pos;
    if (isRun[p] === 0) {
      const lit = literal;
      for (let i = j; i < j + c; i++) {
        const t = lit[i]!;
        a = mixA(a, t);
        b = mixB(b, t);
      }
    } else if (c >= MIN_SYMBOLIC) {
      // RUN_MARK and the start state (in the key), the offset and the count.
      a = mixA(mixA(mixA(a, runKey[2 * p]!), j), c);
      b = mixB(mixB(mixB(b, runKey[2 * p + 1]!), j), c);
    } else {
      // A short stretch at either end of a run: its IDs.
      state.set(runWords.subarray(4 * p, 4 * p + 4));
      skipState(state, 0, j);
      fillIntnFromState(state, 0, drawn, 0, c, TOKEN_VOCABULARY);
      for (let i = 0; i < c; i++) {
        a = mixA(a, drawn[i]!);
        b = mixB(b, drawn[i]!);
      }
    }
    pos += c;
    if (pos === pe) p++;
  }
  cursor = p;
  chain[0] = finalizeHash(a, b);
}

/** Chains of prefixes made of runs only, by their description (describePrefix). */
const memo = new ChainMemo();
let description = new Int32Array(32);

/**
 * Describes the loaded sequence's positions [0, end) hashed in blocks of blockSize into
 * description[0 .. result): the two numbers, then per piece its start state and its length within
 * the range, which is all that the blocks' hashes depend on. -1 when literal IDs lie in the range.
 */
function describePrefix(end: number, blockSize: number): number {
  if (description.length < 2 + 5 * pieces) description = new Int32Array(4 + 10 * pieces);
  const d = description;
  d[0] = blockSize;
  d[1] = end;
  let n = 2;
  for (let p = 0; p < pieces && pieceStart[p]! < end; p++) {
    if (pieceIsRun[p] === 0) return -1;
    for (let w = 0; w < 4; w++) d[n + w] = runWords[4 * p + w]!;
    const len = pieceLen[p]!;
    const rest = end - pieceStart[p]!;
    d[n + 4] = len < rest ? len : rest;
    n += 5;
  }
  return n;
}

/**
 * Hash chain of the full blocks among the first `count` tokens of seq, into out[0 .. result).
 * With blocks shorter than MIN_SYMBOLIC every stretch is short: the IDs are drawn and hashed.
 */
export function seqHashesInto(seq: TokenSeq, count: number, blockSize: number, out: Float64Array): number {
  const k = Math.floor(count / blockSize);
  if (blockSize < MIN_SYMBOLIC) {
    out.set(blockHashChain(scratchTokens(seq, k * blockSize), k * blockSize, blockSize));
    return k;
  }
  loadPieces(seq);
  const n = k > 0 ? describePrefix(k * blockSize, blockSize) : -1;
  if (n > 0 && memo.recall(description, n, out, k)) return k;
  chain[0] = NO_HASH;
  for (let i = 0; i < k; i++) {
    windowHash(i * blockSize, blockSize);
    out[i] = chain[0]!;
  }
  if (n > 0) memo.remember(description, n, out, k);
  return k;
}

/** Hash chain of the full blocks of the whole sequence. */
export function sequenceHashes(seq: TokenSeq, blockSize: number): Float64Array {
  const out = new Float64Array(Math.floor(seq.length / blockSize));
  seqHashesInto(seq, seq.length, blockSize, out);
  return out;
}

/** Hash of the full block of positions [start, start + blockSize) of seq, chained on `prev`. */
export function seqBlockHash(seq: TokenSeq, start: number, blockSize: number, prev: number): number {
  if (blockSize < MIN_SYMBOLIC) return blockHash(scratchTokens(seq, start + blockSize), start, blockSize, prev);
  loadPieces(seq);
  chain[0] = prev;
  windowHash(start, blockSize);
  return chain[0]!;
}

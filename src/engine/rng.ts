// Seeded, partitioned pseudo-random generator.
// xoshiro128** core (32-bit state words, fast in V8), seeded through splitmix64 so that any
// 64-bit seed gives a well-mixed state. Bit-identity with Go's math/rand is not a goal;
// the stream structure (which stream feeds which draw, in which order) is.

import { skipState } from "./xoshiroSkip.js";

export { skipState };

const MASK64 = (1n << 64n) - 1n;
const TWO_POW_53 = 9007199254740992;
const TWO_POW_32 = 4294967296;

/** 64-bit FNV-1a over the UTF-8 bytes of `label`, as a signed 64-bit integer. */
export function fnv1a64(label: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(label, "utf8")) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & MASK64;
  }
  return BigInt.asIntN(64, h);
}

/** Seed of a named sub-stream: master XOR fnv1a64(label), in 64-bit two's complement. */
export function deriveStreamSeed(master: bigint, label: string): bigint {
  return BigInt.asIntN(64, BigInt.asIntN(64, master) ^ fnv1a64(label));
}

function splitmix64(state: { s: bigint }): bigint {
  state.s = (state.s + 0x9e3779b97f4a7c15n) & MASK64;
  let z = state.s;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** Int32 words of a recorded run of draws: the four xoshiro128** state words, then the count. */
export const RUN_WORDS = 5;

/**
 * Fills arr[start, end) with the intn(n) draws a stream whose state words are
 * state[at .. at + 4) would make next; the state itself is left unchanged.
 */
export function fillIntnFromState(
  state: Int32Array,
  at: number,
  arr: Int32Array,
  start: number,
  end: number,
  n: number,
): void {
  let a = state[at]!;
  let b = state[at + 1]!;
  let c = state[at + 2]!;
  let d = state[at + 3]!;
  for (let i = start; i < end; i++) {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t2 = c ^ a;
    const t3 = d ^ b;
    a ^= t3;
    c = t2 ^ (b << 9);
    b ^= t2;
    d = rotl(t3, 11);
    arr[i] = Math.floor((r / TWO_POW_32) * n);
  }
}

export class Rng {
  /** xoshiro128** state words a, b, c, d (typed storage keeps them unboxed). */
  private readonly s = new Int32Array(4);

  constructor(seed: bigint | number) {
    const st = { s: BigInt.asUintN(64, BigInt(seed)) };
    const x = splitmix64(st);
    const y = splitmix64(st);
    const s = this.s;
    s[0] = Number(x & 0xffffffffn) | 0;
    s[1] = Number(x >> 32n) | 0;
    s[2] = Number(y & 0xffffffffn) | 0;
    s[3] = Number(y >> 32n) | 0;
    if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;
  }

  /**
   * Fills arr[start, end) with intn(n) draws: the same values, in the same order, as calling
   * intn(n) per slot, with the state kept in locals (token IDs are most of the draws).
   */
  fillIntn(arr: Int32Array, start: number, end: number, n: number): void {
    fillIntnFromState(this.s, 0, arr, start, end, n);
    this.skip(end - start);
  }

  /**
   * Records a run of `count` draws without making them: the current state and the count go to
   * into[at, at + RUN_WORDS) (for fillIntnFromState), and the stream moves past the run.
   */
  recordRun(into: Int32Array, at: number, count: number): void {
    into.set(this.s, at);
    into[at + 4] = count;
    this.skip(count);
  }

  /** State word i (0 to 3), e.g. to record where a run of draws starts. */
  word(i: number): number {
    return this.s[i]!;
  }

  /** Advances the stream by `count` draws. */
  skip(count: number): void {
    skipState(this.s, 0, count);
  }

  /** Uniform 32-bit unsigned integer. */
  uint32(): number {
    const s = this.s;
    const a = s[0]!;
    const b = s[1]!;
    const c = s[2]! ^ a;
    const d = s[3]! ^ b;
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    s[0] = a ^ d;
    s[1] = b ^ c;
    s[2] = c ^ (b << 9);
    s[3] = rotl(d, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  float64(): number {
    const hi = this.uint32() >>> 5; // 27 bits
    const lo = this.uint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / TWO_POW_53;
  }

  /** Uniform integer in [0, n) for 0 < n <= 2^32. */
  intn(n: number): number {
    return Math.floor((this.uint32() / TWO_POW_32) * n);
  }

  /** Non-negative 63-bit integer. */
  int63(): bigint {
    const hi = BigInt(this.uint32() >>> 1);
    const lo = BigInt(this.uint32());
    return (hi << 32n) | lo;
  }

  /** Standard normal deviate (Box-Muller, one value per call). */
  normFloat64(): number {
    let u = this.float64();
    while (u === 0) u = this.float64();
    const v = this.float64();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exp(1) deviate. */
  expFloat64(): number {
    return -Math.log(1 - this.float64());
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Named streams derived from one master seed; each is created on first use and reused. */
export class PartitionedRng {
  private readonly streams = new Map<string, Rng>();
  constructor(readonly master: bigint) {}

  stream(label: string): Rng {
    let r = this.streams.get(label);
    if (r === undefined) {
      r = new Rng(label === "workload" ? this.master : deriveStreamSeed(this.master, label));
      this.streams.set(label, r);
    }
    return r;
  }
}

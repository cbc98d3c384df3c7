// Two KV stores side by side: random requests (some with private draws after a shared prefix, some
// made only of shared literal tokens), random admission, chunked prefill, decode, preemption and
// completion, applied to each store's own copies of the requests, with everything observable kept
// for comparison (kv/privateEntries.test.ts, kv/privateRuns.test.ts).
import fc from "fast-check";
import type { KvStore } from "../../src/kv/kvStore.js";
import { TokenSeq } from "../../src/core/tokenSeq.js";
import { Request } from "../../src/core/request.js";
import { SeqRequest } from "../../src/core/workloadRequest.js";
import { Rng } from "../../src/engine/rng.js";

export interface Spec {
  literal: number[];
  /** Length of the private run after the literal tokens (0: the request has none). */
  run: number;
  seed: number;
  output: number;
}

/**
 * Literal tokens, then (if any) a run of draws no other request holds: a stream of its own, as the
 * workload generator's streams are (states of a poorly mixed stream would share their first draws).
 */
function seqOf(s: Spec, unique: number): TokenSeq {
  const lit = Int32Array.from(s.literal);
  const length = lit.length + s.run;
  if (s.run === 0) return new TokenSeq(length, lit, 0, 0, 0, 0, 0, new Int32Array(0), 0, 0);
  const rng = new Rng(BigInt(s.seed) * 64n + BigInt(unique));
  const [a, b, c, d] = [0, 1, 2, 3].map((i) => rng.word(i)) as [number, number, number, number];
  return new TokenSeq(length, lit, s.run, a, b, c, d, new Int32Array(0), 0, 0, lit.length);
}

/** The request of spec s: prompt = all but its last `output` tokens. */
export function requestOf(s: Spec, bs: number, seq: number): Request {
  const tokens = seqOf(s, seq);
  const output = Math.min(s.output, tokens.length - 1);
  const w = new SeqRequest(0, tokens, tokens.length - output, output, "", "", "", false, "", 0, 0, 0, 0, 0, 0);
  return new Request(w, seq, bs);
}

export const specArb = fc.record({
  literal: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 12 }),
  run: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 24 })),
  seed: fc.nat(),
  output: fc.integer({ min: 0, max: 10 }),
});

export type Op = { kind: "admit" | "step" | "preempt" | "finish"; who: number; chunk: number };
export const opArb = fc.record({
  kind: fc.constantFrom<Op["kind"]>("admit", "admit", "step", "step", "step", "preempt", "preempt", "finish"),
  who: fc.nat(),
  chunk: fc.integer({ min: 1, max: 16 }),
});

/** One side of the comparison: a store and its own copies of the requests. */
export class Side {
  readonly kv: KvStore;
  readonly reqs: Request[];
  readonly running: boolean[];
  readonly done: boolean[];
  constructor(specs: Spec[], bs: number, kv: KvStore) {
    this.kv = kv;
    this.reqs = specs.map((s, i) => requestOf(s, bs, i));
    this.running = specs.map(() => false);
    this.done = specs.map(() => false);
  }

  /** Applies op; returns what it observed (compared between the sides). */
  apply(op: Op): string {
    const i = op.who % this.reqs.length;
    const r = this.reqs[i]!;
    const kv = this.kv;
    if (this.done[i]) return "done";
    if (op.kind === "admit") {
      if (this.running[i]) return "running";
      let n = kv.cachedPrefix(r);
      const prefix = Array.from(kv.prefixScratch.subarray(0, n)).join(",");
      if (n > 0 && n * kv.blockSize >= r.inputLen) n--;
      const c = n * kv.blockSize;
      const end = Math.min(r.inputLen, c + op.chunk);
      const ok = kv.allocate(r, c, end, n);
      if (ok) {
        this.running[i] = true;
        r.pi = end;
      }
      return `admit ${prefix} ${ok}`;
    }
    if (!this.running[i]) return "waiting";
    if (op.kind === "step") {
      const total = r.inputLen + r.outputLen;
      if (r.pi >= total) return "complete";
      const end = r.pi < r.inputLen ? Math.min(r.inputLen, r.pi + op.chunk) : r.pi + 1;
      const ok = kv.allocate(r, r.pi, end, 0);
      if (ok) r.pi = end;
      return `step ${ok}`;
    }
    this.running[i] = false;
    if (op.kind === "preempt") {
      kv.releaseToRetry(r);
      r.pi = 0;
    } else {
      kv.release(r);
      this.done[i] = true;
    }
    return op.kind;
  }

  /** Everything the two sides must agree on after each operation. */
  state(): string {
    const kv = this.kv;
    const blocks = this.reqs.map((r) => Array.from(r.blocks.subarray(0, r.nBlocks)).join(",")).join("|");
    const refs: number[] = [];
    for (let b = 0; b < kv.totalBlocks; b++) refs.push(kv.refCountOf(b));
    return `${kv.used} ${kv.hits} ${kv.misses} [${kv.freeListIds().join(",")}] [${refs.join(",")}] ${blocks}`;
  }
}

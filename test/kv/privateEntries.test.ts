import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KvStore } from "../../src/kv/kvStore.js";
import { TokenSeq } from "../../src/core/tokenSeq.js";
import { Request } from "../../src/core/request.js";
import { SeqRequest } from "../../src/core/workloadRequest.js";
import { Rng } from "../../src/engine/rng.js";
import { FC_SEED } from "../helpers/fc.js";

// A store that keeps private blocks off its shared index must answer every lookup and allocation
// exactly as a store that indexes every block (kv/privateEntries.ts). Random requests (some with
// private draws after a shared prefix, some made only of shared literal tokens), random admission,
// chunked prefill, decode, preemption, completion, and a cache small enough for allocations to fail
// and roll back, run side by side on the two stores.

interface Spec {
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
function requestOf(s: Spec, bs: number, seq: number): Request {
  const tokens = seqOf(s, seq);
  const output = Math.min(s.output, tokens.length - 1);
  const w = new SeqRequest(0, tokens, tokens.length - output, output, "", "", "", false, "", 0, 0, 0, 0, 0, 0);
  return new Request(w, seq, bs);
}

const specArb = fc.record({
  literal: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 12 }),
  run: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 24 })),
  seed: fc.nat(),
  output: fc.integer({ min: 0, max: 10 }),
});

type Op = { kind: "admit" | "step" | "preempt" | "finish"; who: number; chunk: number };
const opArb = fc.record({
  kind: fc.constantFrom<Op["kind"]>("admit", "admit", "step", "step", "step", "preempt", "preempt", "finish"),
  who: fc.nat(),
  chunk: fc.integer({ min: 1, max: 16 }),
});

/** One side of the comparison: a store and its own copies of the requests. */
class Side {
  readonly kv: KvStore;
  readonly reqs: Request[];
  readonly running: boolean[];
  readonly done: boolean[];
  constructor(specs: Spec[], bs: number, blocks: number, privateBlocks: boolean) {
    this.kv = new KvStore(blocks, bs, privateBlocks);
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

test("keeping private blocks off the shared index changes no lookup and no allocation (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 3, max: 24 }),
      fc.array(specArb, { minLength: 1, maxLength: 7 }),
      fc.array(opArb, { minLength: 1, maxLength: 150 }),
      (bs, blocks, specs, ops) => {
        const ref = new Side(specs, bs, blocks, false);
        const opt = new Side(specs, bs, blocks, true);
        for (const op of ops) {
          const a = ref.apply(op);
          const b = opt.apply(op);
          assert.equal(b, a, `after ${JSON.stringify(op)}`);
          assert.equal(opt.state(), ref.state());
        }
      },
    ),
    { seed: FC_SEED, numRuns: 400 },
  );
});

test("a request preempted and readmitted finds its private blocks where the shared index would", () => {
  const bs = 4;
  const found = [false, true].map((privateBlocks) => {
    const kv = new KvStore(10, bs, privateBlocks);
    const r = requestOf({ literal: [], run: 20, seed: 1, output: 4 }, bs, 0);
    assert.ok(kv.allocate(r, 0, 16, 0));
    assert.equal(kv.indexSize(), privateBlocks ? 0 : 4, "private blocks stay off the shared index");
    kv.releaseToRetry(r);
    const again = kv.cachedPrefix(r);
    // Another request takes freed blocks (the oldest freed first: r's last blocks): their entries go.
    const other = requestOf({ literal: [], run: 32, seed: 1, output: 0 }, bs, 1);
    assert.ok(kv.allocate(other, 0, 32, 0));
    return [again, kv.cachedPrefix(r)];
  });
  assert.deepEqual(found[0], [4, 2]);
  assert.deepEqual(found[1], found[0]);
});

test("a failed allocation gives back the entries it took and the ones it evicted, as the shared index does", () => {
  const bs = 2;
  const outcome = [false, true].map((privateBlocks) => {
    const kv = new KvStore(6, bs, privateBlocks);
    const seen: number[] = [];
    // r and then q are preempted holding two and three blocks; o holds the last block.
    const r = requestOf({ literal: [], run: 12, seed: 1, output: 0 }, bs, 0);
    assert.ok(kv.allocate(r, 0, 4, 0));
    kv.releaseToRetry(r);
    const q = requestOf({ literal: [], run: 8, seed: 1, output: 0 }, bs, 1);
    assert.ok(kv.allocate(q, 0, 6, 0));
    kv.releaseToRetry(q);
    const o = requestOf({ literal: [], run: 2, seed: 1, output: 0 }, bs, 2);
    assert.ok(kv.allocate(o, 0, 2, 0));
    seen.push(kv.cachedPrefix(q));
    // r comes back: it attaches its two blocks, takes q's three as fresh blocks (their entries
    // go, its own new ones come) and fails on the fourth. The rollback puts q's entries back and
    // takes r's new ones away.
    const n = kv.cachedPrefix(r);
    seen.push(n);
    assert.equal(kv.allocate(r, n * bs, 12, n), false);
    seen.push(kv.cachedPrefix(q), kv.cachedPrefix(r), kv.used);
    return seen;
  });
  assert.deepEqual(outcome[0], [3, 2, 3, 2, 1]);
  assert.deepEqual(outcome[1], outcome[0]);
});

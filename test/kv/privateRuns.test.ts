import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KvStore } from "../../src/kv/kvStore.js";
import { FreeList, NIL } from "../../src/kv/freeList.js";
import { BlockContent } from "../../src/kv/blockContent.js";
import type { Request } from "../../src/core/request.js";
import { FC_SEED } from "../helpers/fc.js";
import { opArb, requestOf, Side, specArb, type Op, type Spec } from "./storeSides.js";

// A prefill's full private blocks are taken as one run (KvStore.takePrivateRun, FreeList.popHeadRunInto)
// instead of one by one, and so are its full shared prompt blocks (KvStore.takeSharedRun,
// BlockContent.takeShared). The eviction order decides which cached prefixes survive, so the run must
// take exactly the blocks, in exactly the order, that the one-by-one path takes, and leave the free
// list, the index and every lookup as that path does.

type ListOp = { kind: "popHead" | "popHeadRunInto" | "pushTail" | "pushHead" | "unlink"; n: number };
const listOpArb = fc.record({
  kind: fc.constantFrom<ListOp["kind"]>(
    "popHead",
    "popHeadRunInto",
    "popHeadRunInto",
    "pushTail",
    "pushHead",
    "unlink",
  ),
  n: fc.nat({ max: 40 }),
});

/** A free list and the set of blocks taken off it; popHeadRunInto pops one by one when `oneByOne`. */
class ListSide {
  readonly list: FreeList;
  readonly taken: number[] = [];
  constructor(
    total: number,
    readonly oneByOne: boolean,
  ) {
    this.list = new FreeList(total, 2);
  }

  apply(op: ListOp): string {
    const list = this.list;
    const free = list.total - this.taken.length;
    if (op.kind === "popHead" || op.kind === "popHeadRunInto") {
      const n = op.kind === "popHead" ? Math.min(1, free) : op.n % (free + 1);
      const got: number[] = [];
      if (this.oneByOne || op.kind === "popHead") for (let i = 0; i < n; i++) got.push(list.popHead());
      else {
        // Into the middle of a list that already holds entries, as a request's block list is.
        const out = new Int32Array(n + 3).fill(-7);
        list.popHeadRunInto(out, 3, n);
        assert.deepEqual([...out.subarray(0, 3)], [-7, -7, -7], "entries before `at` untouched");
        got.push(...out.subarray(3, 3 + n));
      }
      this.taken.push(...got);
      return got.join(",");
    }
    if (this.taken.length === 0) return "none taken";
    const b = this.taken.splice(op.n % this.taken.length, 1)[0]!;
    if (op.kind === "pushTail") list.pushTail(b);
    else if (op.kind === "pushHead") list.pushHead(b);
    else {
      // Unlink a free block instead (as an attach of a cached block does), and keep it taken.
      list.pushTail(b);
      const ids = list.toArray().filter((x) => x < list.highWater);
      const u = ids[op.n % ids.length]!;
      list.unlink(u);
      this.taken.push(u);
    }
    return `${op.kind} ${b}`;
  }

  state(): string {
    return `${this.list.highWater} ${this.list.head === NIL} [${this.list.toArray().join(",")}]`;
  }
}

test("popHeadRunInto(n) takes what n popHead() calls take and leaves the same list (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 60 }),
      fc.array(listOpArb, { minLength: 1, maxLength: 120 }),
      (total, ops) => {
        const ref = new ListSide(total, true);
        const run = new ListSide(total, false);
        for (const op of ops) {
          assert.equal(run.apply(op), ref.apply(op), `after ${JSON.stringify(op)}`);
          assert.equal(run.state(), ref.state());
        }
        // The list still works from both ends after the runs.
        while (ref.list.head !== NIL) assert.equal(run.list.popHead(), ref.list.popHead());
        assert.equal(run.list.head, NIL);
        assert.equal(run.list.tail, NIL);
      },
    ),
    { seed: FC_SEED, numRuns: 400 },
  );
});

/** Requests with long private prompts, admitted and stepped in long chunks: long runs. */
const longSpecArb: fc.Arbitrary<Spec> = fc.record({
  literal: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 12 }),
  run: fc.integer({ min: 8, max: 80 }),
  seed: fc.nat(),
  output: fc.integer({ min: 0, max: 10 }),
});
const longOpArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom<Op["kind"]>("admit", "step", "preempt", "finish"),
  who: fc.nat(),
  chunk: fc.integer({ min: 8, max: 64 }),
});

test("taking blocks as runs changes no lookup, no allocation and no free-list order (property)", () => {
  // Count the runs taken, the spent runs freed and the runs that took spent blocks back, so that
  // the property is known to exercise them.
  const popHeadRunInto = FreeList.prototype.popHeadRunInto;
  const pushTailSpent = FreeList.prototype.pushTailSpent;
  const takeShared = BlockContent.prototype.takeShared;
  let sharedRuns = 0;
  let runs = 0;
  let spentFreed = 0;
  let spentTaken = 0;
  FreeList.prototype.popHeadRunInto = function (
    this: FreeList,
    out: Int32Array,
    at: number,
    n: number,
    fresh: Int32Array | null = null,
  ): number {
    runs++;
    const nFresh = popHeadRunInto.call(this, out, at, n, fresh);
    if (fresh !== null && nFresh < n) spentTaken++;
    return nFresh;
  };
  FreeList.prototype.pushTailSpent = function (this: FreeList, ids: Int32Array, lo: number, hi: number): void {
    spentFreed++;
    pushTailSpent.call(this, ids, lo, hi);
  };
  BlockContent.prototype.takeShared = function (
    this: BlockContent,
    req: Request,
    from: number,
    n: number,
    hs: Float64Array,
  ): void {
    sharedRuns++;
    takeShared.call(this, req, from, n, hs);
  };
  try {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 3, max: 60 }),
        fc.array(fc.oneof(specArb, longSpecArb), { minLength: 1, maxLength: 7 }),
        fc.array(fc.oneof(opArb, longOpArb), { minLength: 1, maxLength: 150, size: "medium" }),
        // Without private blocks (as the CPU-tier store keeps them) every prompt block is shared.
        fc.boolean(),
        (bs, blocks, specs, ops, privateBlocks) => {
          const ref = new Side(specs, bs, new KvStore(blocks, bs, privateBlocks, false));
          const opt = new Side(specs, bs, new KvStore(blocks, bs, privateBlocks, true));
          for (const op of ops) {
            assert.equal(opt.apply(op), ref.apply(op), `after ${JSON.stringify(op)}`);
            assert.equal(opt.state(), ref.state());
            assert.equal(opt.kv.indexSize(), ref.kv.indexSize());
          }
        },
      ),
      { seed: FC_SEED, numRuns: 800 },
    );
  } finally {
    FreeList.prototype.popHeadRunInto = popHeadRunInto;
    FreeList.prototype.pushTailSpent = pushTailSpent;
    BlockContent.prototype.takeShared = takeShared;
  }
  assert.ok(runs > 300, `only ${runs} runs taken`);
  assert.ok(sharedRuns > 300, `only ${sharedRuns} shared runs taken`);
  assert.ok(spentFreed > 150, `only ${spentFreed} spent runs freed`);
  assert.ok(spentTaken > 20, `only ${spentTaken} runs took spent blocks back`);
});

test("a prompt's private blocks come off the free list as the one-by-one path takes them", () => {
  const bs = 2;
  const [one, run] = [false, true].map((privateRuns) => {
    const kv = new KvStore(8, bs, true, privateRuns);
    // a's blocks are freed last to first, after the untouched blocks: b takes those, then a's
    // from the oldest freed one.
    const a = requestOf({ literal: [], run: 8, seed: 1, output: 0 }, bs, 0);
    assert.ok(kv.allocate(a, 0, 8, 0));
    kv.release(a);
    const b = requestOf({ literal: [], run: 14, seed: 2, output: 0 }, bs, 1);
    assert.ok(kv.allocate(b, 0, 14, 0));
    return { blocks: Array.from(b.blocks.subarray(0, b.nBlocks)), free: kv.freeListIds(), misses: kv.misses };
  });
  assert.deepEqual(run, one);
  assert.deepEqual(run!.blocks, [4, 5, 6, 7, 3, 2, 1]);
  assert.deepEqual(run!.free, [0]);
});

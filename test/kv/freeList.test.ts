import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FreeList, NIL } from "../../src/kv/freeList.js";
import { FC_SEED } from "../helpers/fc.js";

// The free list against a plain array of block IDs, head first: every operation, including the
// run operations (popHeadRunInto, pushTailRun, pushTailSpent) and unlinking next to the untouched
// run, must leave the list in the array's order, readable from both ends.

type Kind = "popHead" | "popHeadRunInto" | "pushTail" | "pushTailRun" | "pushTailSpent" | "pushHead" | "unlink";
interface Op {
  kind: Kind;
  n: number;
}
const kinds: Kind[] = ["popHead", "popHeadRunInto", "pushTail", "pushTailRun", "pushTailSpent", "pushHead", "unlink"];
const opArb = fc.record({ kind: fc.constantFrom(...kinds), n: fc.nat({ max: 40 }) });

/** A free list, its model (the IDs in list order) and the blocks taken off it. */
class Checked {
  readonly list: FreeList;
  model: number[];
  readonly taken: number[] = [];
  /** Blocks now in spent runs: taken back without being reported as fresh. */
  readonly spent = new Set<number>();
  readonly out = new Int32Array(64);
  readonly fresh = new Int32Array(64);

  constructor(total: number) {
    this.list = new FreeList(total, 2);
    this.model = Array.from({ length: total }, (_, i) => i);
  }

  apply(op: Op): void {
    const free = this.model.length;
    if (op.kind === "popHead" || op.kind === "popHeadRunInto") {
      const n = op.kind === "popHead" ? Math.min(1, free) : op.n % (free + 1);
      const got = this.pop(op.kind, n);
      assert.deepEqual(got, this.model.splice(0, n));
      this.taken.push(...got);
    } else if (op.kind === "unlink") {
      // A free materialized block (as an attached cached block is), often next to the untouched
      // run, leaves the list; untouched blocks are only ever taken from the head.
      const materialized = this.model.filter((b) => b < this.list.highWater && !this.spent.has(b));
      if (materialized.length === 0) return;
      const b = materialized[op.n % materialized.length]!;
      this.model.splice(this.model.indexOf(b), 1);
      this.list.unlink(b);
      this.taken.push(b);
    } else {
      this.give(op.kind, op.n);
    }
  }

  private pop(kind: Kind, n: number): number[] {
    if (kind === "popHead") {
      if (n === 0) return [];
      const b = this.list.popHead();
      this.spent.delete(b);
      return [b];
    }
    // At an offset, as into a request's block list.
    const at = n % 3;
    const nFresh = this.list.popHeadRunInto(this.out, at, n, this.fresh);
    const got = Array.from(this.out.subarray(at, at + n));
    const fresh = Array.from(this.fresh.subarray(0, nFresh), (i) => this.out[i]!);
    assert.deepEqual(
      fresh,
      got.filter((b) => !this.spent.has(b)),
      "fresh: the blocks not from spent runs, in order",
    );
    for (const b of got) this.spent.delete(b);
    return got;
  }

  /** Gives back up to n taken blocks (one for pushTail and pushHead). */
  private give(kind: Kind, n: number): void {
    if (this.taken.length === 0) return;
    const count = kind === "pushTailRun" || kind === "pushTailSpent" ? Math.min(n, this.taken.length) : 1;
    const ids = this.taken.splice(0, count);
    if (kind === "pushTailSpent") {
      if (count === 0) return;
      // Members ids[lo .. hi) of a longer list (as a request's block list is), read last first.
      const list = Int32Array.from([-5, ...ids, -6]);
      this.list.pushTailSpent(list, 1, count + 1);
      this.model.push(...ids.reverse());
      for (const b of ids) this.spent.add(b);
      return;
    }
    if (kind === "pushTailRun") this.list.pushTailRun(Int32Array.from(ids), count);
    else if (kind === "pushTail") this.list.pushTail(ids[0]!);
    else this.list.pushHead(ids[0]!);
    if (kind === "pushHead") this.model.unshift(ids[0]!);
    else this.model.push(...ids);
  }

  check(): void {
    assert.deepEqual(this.list.toArray(), this.model);
    assert.equal(this.list.spentBlocks, this.spent.size);
    assert.deepEqual(
      [...this.list.spentMembers()].sort((a, b) => a - b),
      [...this.spent].sort((a, b) => a - b),
    );
  }
}

test("the free list keeps the order of a plain list under runs, unlinks and pushes (property)", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 50 }), fc.array(opArb, { minLength: 1, maxLength: 150 }), (total, ops) => {
      const c = new Checked(total);
      for (const op of ops) {
        c.apply(op);
        c.check();
      }
      // Read from the head until empty: the links agree with the order toArray() walks.
      for (const b of c.model) assert.equal(c.list.popHead(), b);
      assert.equal(c.list.head, NIL);
      assert.equal(c.list.tail, NIL);
    }),
    { seed: FC_SEED, numRuns: 500 },
  );
});

test("a run pushed to the tail is taken back in its order after the untouched blocks", () => {
  const list = new FreeList(6, 2);
  const out = new Int32Array(6);
  list.popHeadRunInto(out, 0, 4);
  assert.deepEqual(Array.from(out.subarray(0, 4)), [0, 1, 2, 3]);
  list.pushTailRun(Int32Array.from([3, 1, 2]), 3);
  assert.deepEqual(list.toArray(), [4, 5, 3, 1, 2]);
  list.unlink(1);
  assert.deepEqual(list.toArray(), [4, 5, 3, 2]);
  list.popHeadRunInto(out, 1, 3);
  assert.deepEqual(Array.from(out.subarray(1, 4)), [4, 5, 3]);
  assert.deepEqual(list.toArray(), [2]);
  assert.equal(list.tail, 2);
});

test("a spent run is taken back last member first, in pieces, between single blocks", () => {
  const list = new FreeList(8, 2);
  const out = new Int32Array(8);
  const fresh = new Int32Array(8);
  assert.equal(list.popHeadRunInto(out, 0, 8, fresh), 8, "untouched blocks are fresh");
  list.pushTail(7);
  // A request's list [6, 0, 1, 2, 3]: its private run is positions 1 .. 4.
  list.pushTailSpent(Int32Array.from([6, 0, 1, 2, 3]), 1, 5);
  list.pushTail(6);
  assert.deepEqual(list.toArray(), [7, 3, 2, 1, 0, 6]);
  assert.equal(list.spentBlocks, 4);
  assert.equal(list.popHeadRunInto(out, 2, 3, fresh), 1);
  assert.deepEqual(Array.from(out.subarray(2, 5)), [7, 3, 2]);
  assert.equal(fresh[0], 2, "only block 7, at position 2, is fresh");
  assert.equal(list.popHead(), 1);
  assert.deepEqual(list.toArray(), [0, 6]);
  assert.equal(list.spentBlocks, 1);
  assert.equal(list.popHeadRunInto(out, 0, 2, fresh), 1);
  assert.deepEqual(Array.from(out.subarray(0, 2)), [0, 6]);
  assert.equal(list.head, NIL);
  assert.equal(list.tail, NIL);
  assert.equal(list.spentBlocks, 0);
});

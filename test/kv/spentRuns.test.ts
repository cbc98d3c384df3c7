import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SpentRuns } from "../../src/kv/spentRuns.js";
import { FC_SEED } from "../helpers/fc.js";

// The spent runs' ring against a plain queue of runs: runs are added at the back and taken from
// the front, in pieces or one member at a time, across the ring's wrap-around and its growth (a
// run longer than the ring, runs added while the oldest is half taken).

type Op = { kind: "add" | "take" | "takeOne"; n: number; lo: number };
const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom<Op["kind"]>("add", "add", "take", "takeOne"),
  n: fc.integer({ min: 1, max: 150 }),
  lo: fc.nat({ max: 3 }),
});

test("spent runs keep each run's members in freed order through wrap-around and growth (property)", () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 1, maxLength: 80 }), (ops) => {
      const spent = new SpentRuns();
      const live: { r: number; members: number[] }[] = [];
      let nextId = 0;
      for (const op of ops) {
        if (op.kind === "add") {
          // Members ids[lo .. lo + n) of a longer list, freed last first.
          const ids = Int32Array.from({ length: op.lo + op.n + 2 }, () => nextId++);
          const r = spent.add(ids, op.lo, op.lo + op.n);
          live.push({ r, members: Array.from(ids.subarray(op.lo, op.lo + op.n)).reverse() });
        } else if (live.length > 0) {
          const oldest = live[0]!;
          let got: number[];
          if (op.kind === "takeOne") got = [spent.takeOne(oldest.r)];
          else {
            const out = new Int32Array(op.n + 2);
            const m = spent.take(oldest.r, out, 2, op.n);
            got = Array.from(out.subarray(2, 2 + m));
          }
          assert.deepEqual(got, oldest.members.splice(0, got.length));
          if (spent.isEmpty(oldest.r)) {
            assert.equal(oldest.members.length, 0);
            spent.drop(oldest.r);
            live.shift();
          }
        }
        for (const run of live) assert.deepEqual(spent.members(run.r), run.members);
        assert.equal(
          spent.blocks,
          live.reduce((sum, run) => sum + run.members.length, 0),
        );
      }
    }),
    { seed: FC_SEED, numRuns: 300 },
  );
});

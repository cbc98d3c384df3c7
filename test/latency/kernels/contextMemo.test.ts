// The decode-attention memo answers only what it was told for that very batch size and context, and
// a surface answers the same through it as a surface that has never been asked before.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ContextMemo } from "../../../src/latency/kernels/contextMemo.js";
import { DecodeSurface } from "../../../src/latency/kernels/attention.js";
import { FC_SEED } from "../../helpers/fc.js";
import { readTables, recordingNotes } from "./helpers.js";

/** Batch sizes in and out of the memo's range, non-integer ones included. */
const batchArb = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(1.5, 2.25, -1));
/** Contexts that share slots: integers, halves, thirds, and some 4,096 tokens apart (the same slot). */
const contextArb = fc.oneof(
  fc.integer({ min: 0, max: 20 }),
  fc.integer({ min: 0, max: 40 }).map((n) => n / 2),
  fc.integer({ min: 0, max: 60 }).map((n) => n / 3),
  fc.integer({ min: 0, max: 3 }).map((n) => 5 + n * 4096),
);

test("the memo says it holds a (batch, context) only with the value last kept for that pair (property)", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(batchArb, contextArb, fc.double({ noNaN: true })), { maxLength: 200 }), (ops) => {
      const memo = new ContextMemo();
      const reference = new Map<string, number>();
      let answered = 0;
      for (const [batch, context, value] of ops) {
        const s = memo.slot(batch, context);
        if (s < 0) continue;
        if (memo.has(batch, s, context)) {
          answered++;
          assert.equal(memo.value(batch, s), reference.get(`${batch}/${context}`), `batch ${batch} context ${context}`);
        } else {
          memo.keep(batch, s, context, value);
          reference.set(`${batch}/${context}`, value);
          assert.ok(memo.has(batch, s, context), "kept, then not found");
        }
      }
      return answered >= 0;
    }),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("the memo keeps small integer batch sizes and non-negative contexts only", () => {
  const memo = new ContextMemo();
  assert.ok(memo.slot(1, 12000) >= 0);
  assert.ok(memo.slot(8, 0.5) >= 0);
  for (const [b, c] of [
    [0, 10],
    [9, 10],
    [1.5, 10],
    [2, -1],
    [2, NaN],
  ] as const)
    assert.equal(memo.slot(b, c), -1, `batch ${b} context ${c}`);
});

test("decode attention asked again gives what a surface asked for the first time gives (property)", () => {
  const t = readTables("H100", "0.14.0");
  const shape = { heads: 32, kvHeads: 8, headDim: 128 };
  const asked = new DecodeSurface(t.generation, shape, recordingNotes());
  const batch = fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constantFrom(1.5, 48));
  const context = fc.oneof(
    fc.integer({ min: 1, max: 70000 }),
    fc.integer({ min: 2, max: 140000 }).map((n) => n / 2),
    fc.integer({ min: 0, max: 4 }).map((n) => 1000 + n * 4096),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(batch, context), { minLength: 1, maxLength: 40 }), (pairs) => {
      for (const [b, c] of [...pairs, ...pairs]) {
        const fresh = new DecodeSurface(t.generation, shape, recordingNotes());
        assert.equal(asked.at(b, c), fresh.at(b, c), `batch ${b} context ${c}`);
      }
    }),
    { seed: FC_SEED, numRuns: 60 },
  );
});

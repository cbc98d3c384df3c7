// The decode-attention memo answers only what it was told for that very batch size and context, and
// a surface answers the same through it as a surface that has never been asked before.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ContextMemo } from "../../../src/latency/kernels/contextMemo.js";
import { DecodeSurface } from "../../../src/latency/kernels/attention.js";
import { FC_SEED } from "../../helpers/fc.js";
import { decode, LLAMA_8B, readTables, recordingNotes, resolveKernels } from "./helpers.js";
import type { LatencyModel } from "../../../src/latency/model.js";
import { KernelLatencyModel, TokenCostCache } from "../../../src/latency/kernels/kernelModel.js";
import type { LayerCosts } from "../../../src/latency/kernels/layers.js";

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
    fc.property(
      fc.constantFrom(1, 2),
      fc.array(fc.tuple(batchArb, contextArb, fc.double({ noNaN: true })), { maxLength: 200 }),
      (scale, ops) => {
        const memo = new ContextMemo(scale);
        const reference = new Map<string, number>();
        let answered = 0;
        for (const [batch, context, value] of ops) {
          const s = memo.slot(batch, context);
          if (s < 0) continue;
          if (memo.has(batch, s, context)) {
            answered++;
            assert.equal(
              memo.value(batch, s),
              reference.get(`${batch}/${context}`),
              `batch ${batch} context ${context}`,
            );
          } else {
            memo.keep(batch, s, context, value);
            reference.set(`${batch}/${context}`, value);
            assert.ok(memo.has(batch, s, context), "kept, then not found");
          }
        }
        return answered >= 0;
      },
    ),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("the memo keeps small integer batch sizes and non-negative contexts only", () => {
  const memo = new ContextMemo(2);
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

test("a step of decodes asked again takes what a model that was never asked gives it (property)", async () => {
  const asked = (await resolveKernels(LLAMA_8B, "H100", 1)).r.build();
  const fresh = async (): Promise<LatencyModel> => (await resolveKernels(LLAMA_8B, "H100", 1)).r.build();
  // A step is n decodes whose positions add up to a total drawn from a few (so that batches of
  // different sizes meet on the same total), asked as a listed batch or as a cohort.
  const step = fc.tuple(fc.integer({ min: 1, max: 10 }), fc.constantFrom(12000, 12001, 24002, 40000), fc.boolean());
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      for (const [n, total, listed] of [...steps, ...steps]) {
        const each = Math.floor(total / n);
        const batch = Array.from({ length: n }, (_, i) => decode(i === 0 ? total - each * (n - 1) : each));
        const time = (m: LatencyModel): number =>
          listed ? m.stepTime(batch, n) : m.stepTimeWithDecodes!([], 0, n, total);
        assert.equal(time(asked), time(await fresh()), `${n} decodes at ${total} positions in all`);
      }
    }),
    { seed: FC_SEED, numRuns: 25 },
  );
});

/** Costs that make a decode-only step's time tell its count and position sum apart. */
const COSTS: LayerCosts = {
  numLayers: 2,
  tokens: (m) => 10 * m,
  lmHead: (rows) => rows,
  prefillChunk: (_c, n) => n,
  decode: (batch, context) => batch * context,
};

test("the models of one cost cache share its memo of decode-only kernel times, each adding its own overheads", () => {
  const cache = new TokenCostCache(COSTS);
  const model = (beta: number[]): KernelLatencyModel => new KernelLatencyModel(cache, { alpha: [0, 0, 0], beta });
  // Two models of one cache, asked in turn, give what a model of a fresh cache gives, asked once or twice.
  const lowOverhead = model([1, 0, 2, 3]);
  const highOverhead = model([1000, 0, 2, 3]);
  const fresh = new KernelLatencyModel(new TokenCostCache(COSTS), { alpha: [0, 0, 0], beta: [1000, 0, 2, 3] });
  for (const [n, pis] of [
    [1, 500],
    [2, 500],
    [1, 500],
    [3, 9000],
    [2, 500],
  ] as const) {
    assert.equal(highOverhead.stepTimeWithDecodes([], 0, n, pis), fresh.stepTimeWithDecodes([], 0, n, pis));
    assert.equal(lowOverhead.stepTimeWithDecodes([], 0, n, pis) + 999, highOverhead.stepTimeWithDecodes([], 0, n, pis));
  }
});

// Prefill attention of one chunk (docs/latency.md "Kernels"): n new rows after c cached ones cost
// the larger of the rise Q(c + n) − Q(c) of the lower convex hull of the full-prefill curve, the chunk alone P(n)
// and one decode reading the c cached tokens. The expected values are written out by hand for a
// small curve with a concave stretch (where P(c + n) − P(c) itself would fall as c grows).

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { DecodeSurface, PrefillAttention } from "../../../src/latency/kernels/attention.js";
import { Curve } from "../../../src/latency/kernels/curve.js";
import type { AttentionTable } from "../../../src/latency/kernels/tables.js";
import { FC_SEED } from "../../helpers/fc.js";
import { recordingNotes } from "./helpers.js";

/**
 * P: slopes 10/99 (1→100), 0.05 (100→200, concave), 0.175 (200→400) µs per token. The point at 100
 * lies above the chord from 1 to 200, so the lower convex hull is (1, 10), (200, 25), (400, 60):
 * slopes 15/199 and 0.175, Q(100) = 99 · 15/199, Q(200) = 15, Q(400) = 50.
 */
const P = new Curve([1, 100, 200, 400], [10, 20, 25, 60], 2);
const Q200 = 15;
const Q400 = 50;
const HULL_SLOPE = 15 / 199;
/** Decode of one sequence: 1 µs at context 1, 50 µs at 1000, log-log between. */
const DECODE: AttentionTable = { "1/1/64": { "1": { x: [1, 1000], us: [1, 50] } } };
const decodeAt = (c: number): number => Math.pow(50, Math.log(c) / Math.log(1000));

const attention = (): PrefillAttention =>
  new PrefillAttention(P, new DecodeSurface(DECODE, { heads: 1, kvHeads: 1, headDim: 64 }, recordingNotes()));

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

// On this curve Q(n) ≤ P(n) − P(1) everywhere, so a prompt from scratch is P itself; where an early
// segment is steeper than later ones (as on H100's table, golden.test.ts (a)), Q(n) can exceed P(n).
test("prefill chunk: a prompt from scratch is the prefill curve itself when its convex rise stays below it", () => {
  const a = attention();
  for (const n of [1, 50, 100, 250, 400, 800])
    assert.ok(close(a.chunk(0, n), P.at(n)), `n=${n}: ${a.chunk(0, n)} vs ${P.at(n)}`);
  assert.equal(a.chunk(0, 400), 60);
});

test("prefill chunk: after cached tokens, the convex rise where it dominates", () => {
  const a = attention();
  // Q(400) − Q(150) = 50 − 149 · 15/199 ≈ 38.77; P(250) ≈ 33.1 and one decode at 150 ≈ 17.1 are smaller.
  assert.ok(close(a.chunk(150, 250), Q400 - 149 * HULL_SLOPE), String(a.chunk(150, 250)));
  assert.ok(close(a.chunk(200, 200), 35), String(a.chunk(200, 200)));
  // Beyond the grid Q grows as the larger of the last slope and P's tokens² growth:
  // Q(800) − Q(400) = max(0.175 · 400, 60 · 2² − 60) = 180.
  assert.ok(close(a.chunk(400, 400), 180), String(a.chunk(400, 400)));
  // Q(500) − Q(300) = (Q400 + max(0.175 · 100, 60 · 1.25² − 60)) − (Q200 + 0.175 · 100) = 51.25.
  assert.ok(close(a.chunk(300, 200), Q400 + 33.75 - (Q200 + 17.5)), String(a.chunk(300, 200)));
});

test("prefill chunk: the chunk alone, or reading the cached KV, where those dominate", () => {
  const a = attention();
  // 100 rows after 100: Q rises 15 − 99 · 15/199 ≈ 7.5, the chunk alone P(100) = 20, one decode at 100 ≈ 13.6.
  assert.equal(a.chunk(100, 100), 20);
  // One row after 1000 cached: the rise ≈ 0.9 and P(1) = 10 are below reading 1000 tokens, 50 µs.
  assert.equal(a.chunk(1000, 1), 50);
  assert.ok(close(a.chunk(700, 1), decodeAt(700)), String(a.chunk(700, 1)));
});

test("prefill chunk (property): never cheaper with more cached context or more new rows", () => {
  const a = attention();
  const ordered = fc
    .tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }))
    .map(([x, y]): [number, number] => (x <= y ? [x, y] : [y, x]));
  fc.assert(
    fc.property(ordered, fc.integer({ min: 1, max: 3000 }), ([c1, c2], n) => {
      assert.ok(
        a.chunk(c1, n) <= a.chunk(c2, n) * (1 + 1e-12),
        `n=${n}: cached ${c1} ${a.chunk(c1, n)} > cached ${c2} ${a.chunk(c2, n)}`,
      );
      assert.ok(a.chunk(n, c1 + 1) <= a.chunk(n, c2 + 1) * (1 + 1e-12), `cached ${n}: ${c1 + 1} rows > ${c2 + 1} rows`);
    }),
    { seed: FC_SEED, numRuns: 500 },
  );
  // Where P(c + n) − P(c) falls with c (its concave stretch), the chunk does not.
  assert.ok(P.at(200) - P.at(100) < P.at(100) - P.at(1));
  assert.ok(a.chunk(100, 100) >= a.chunk(1, 100));
});

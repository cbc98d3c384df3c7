// The composition reads the measured tables exactly (docs/latency.md "Kernels"): a GEMM whose
// weight shape is on the grid is the table's row, attention at a measured length is the table's
// value; between grid shapes the time is log-log interpolated. Expected values come from the JSON
// files in data/kernels, parsed here.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { DecodeSurface, prefillCurve } from "../../../src/latency/kernels/attention.js";
import { gemmCurve } from "../../../src/latency/kernels/gemm.js";
import { between, Curve, floorIndex } from "../../../src/latency/kernels/curve.js";
import type { CurveData, GemmGrid } from "../../../src/latency/kernels/tables.js";
import { FC_SEED } from "../../helpers/fc.js";
import { readTables, recordingNotes } from "./helpers.js";

const cellOf = (g: GemmGrid, mi: number, ni: number, ki: number): number | null =>
  g.us[(mi * g.n.length + ni) * g.k.length + ki] ?? null;

/** The lower monotone envelope by its definition: each point the fastest of itself and every later point. */
function envelope(ys: readonly number[]): number[] {
  return ys.map((_, i) => Math.min(...ys.slice(i)));
}

/** Grid shapes (n, k) whose interpolation neighbourhood is measured at every m. */
function measuredShapes(g: GemmGrid): [number, number][] {
  const out: [number, number][] = [];
  for (let ni = 0; ni < g.n.length; ni++) {
    for (let ki = 0; ki < g.k.length; ki++) {
      const n1 = Math.min(ni + 1, g.n.length - 1);
      const k1 = Math.min(ki + 1, g.k.length - 1);
      const all = g.m.every((_, mi) => [ni, n1].every((a) => [ki, k1].every((b) => cellOf(g, mi, a, b) !== null)));
      if (all) out.push([ni, ki]);
    }
  }
  return out;
}

for (const [gpu, version, dtype] of [
  ["H100", "0.14.0", "bfloat16"],
  ["H100", "0.14.0", "fp8"],
  ["B200", "0.24.0", "bfloat16"],
  ["L40S", "0.14.0", "bfloat16"],
] as const) {
  test(`gemm ${gpu} ${version} ${dtype}: a weight shape on the grid is the table row (its envelope) at every measured m`, () => {
    const g = readTables(gpu, version).gemm[dtype]!;
    const shapes = measuredShapes(g);
    assert.ok(shapes.length >= 400, `only ${shapes.length} fully measured shapes`);
    for (const [ni, ki] of shapes) {
      const c = gemmCurve(g, g.n[ni]!, g.k[ki]!, recordingNotes(), "test");
      const row = g.m.map((_, mi) => cellOf(g, mi, ni, ki)!);
      const env = envelope(row);
      assert.deepEqual([...c.xs], g.m, `n=${g.n[ni]} k=${g.k[ki]}: one point per measured m`);
      // Where the row rises the envelope is the measured value itself; where a point is slower than a
      // later one, the fastest later time.
      g.m.forEach((m, mi) => assert.equal(c.at(m), env[mi], `n=${g.n[ni]} k=${g.k[ki]} m=${m} (measured ${row[mi]})`));
    }
  });
}

test("gemm: Llama-3.1-8B's QKV at TP1 (n=6144, k=4096, on the grid) reads H100 bf16 cells verbatim where no larger m was faster", () => {
  const g = readTables("H100", "0.14.0").gemm["bfloat16"]!;
  const c = gemmCurve(g, 6144, 4096, recordingNotes(), "QKV");
  const [ni, ki] = [g.n.indexOf(6144), g.k.indexOf(4096)];
  for (const m of [96, 512, 1024, 2048, 8192]) assert.equal(c.at(m), cellOf(g, g.m.indexOf(m), ni, ki), `m=${m}`);
  // m = 64 was measured slower (22.987 µs) than m = 80 (20.835 µs): it takes the m = 80 time, as do
  // m = 16 to 48; m = 1 takes m = 2's 20.559 µs.
  const at80 = cellOf(g, g.m.indexOf(80), ni, ki)!;
  assert.equal(at80, 20.835);
  for (const m of [16, 32, 48, 64, 80]) assert.equal(c.at(m), at80, `m=${m}`);
  assert.equal(c.at(1), 20.559);
});

test("gemm: a weight shape between grid values is log-log interpolated along n and k", () => {
  const g = readTables("H100", "0.14.0").gemm["bfloat16"]!;
  // Llama-3.1-8B gate/up at TP1: n = 2 · 14336 = 28672 lies between 16384 and 65536; k = 4096 is on the grid.
  const n = 28672;
  const [n0, n1, ki] = [g.n.indexOf(16384), g.n.indexOf(65536), g.k.indexOf(4096)];
  const f = Math.log(n / 16384) / Math.log(65536 / 16384);
  const interp = g.m.map((_, mi) => {
    const a = cellOf(g, mi, n0, ki)!;
    const b = cellOf(g, mi, n1, ki)!;
    return a * Math.pow(b / a, f);
  });
  const expected = envelope(interp);
  const c = gemmCurve(g, n, 4096, recordingNotes(), "gate/up");
  g.m.forEach((m, mi) =>
    assert.ok(Math.abs(c.at(m) - expected[mi]!) <= 1e-9 * expected[mi]!, `m=${m}: ${c.at(m)} vs ${expected[mi]}`),
  );
});

test("gemm: an LM head wider than the grid is priced as equal parts inside it", () => {
  const g = readTables("H100", "0.14.0").gemm["bfloat16"]!;
  // Llama-3.1 vocabulary 128256 rows: two parts of 64128 (between n = 16384 and 65536), k = 4096.
  const whole = gemmCurve(g, 128256, 4096, recordingNotes(), "LM head");
  const half = gemmCurve(g, 64128, 4096, recordingNotes(), "half");
  for (const m of [1, 32, 1024]) assert.ok(Math.abs(whole.at(m) - 2 * half.at(m)) <= 1e-9 * whole.at(m), `m=${m}`);
});

test("gemm: beyond the largest measured m the time scales linearly, and the note is made once", () => {
  const g = readTables("H100", "0.14.0").gemm["bfloat16"]!;
  const notes = recordingNotes();
  const c = gemmCurve(g, 4096, 4096, notes, "output projection");
  const last = g.m[g.m.length - 1]!;
  assert.equal(notes.said.length, 0);
  assert.ok(Math.abs(c.at(3 * last) - 3 * c.at(last)) <= 1e-9 * c.at(3 * last));
  c.at(5 * last);
  assert.equal(notes.said.length, 1);
  assert.match(notes.said[0]!, /GEMM m \(tokens per step\) beyond 8192 for output projection/);
});

const batchOne = (rows: Record<string, CurveData>): CurveData => rows["1"]!;

test("prefill attention at a measured prompt length is the table's batch-1 value (H100 0.14.0, 32/8/128)", () => {
  const t = readTables("H100", "0.14.0");
  const one = batchOne(t.context["32/8/128"]!);
  const notes = recordingNotes();
  const c = prefillCurve(t.context, { heads: 32, kvHeads: 8, headDim: 128 }, notes);
  const env = envelope(one.us);
  one.x.forEach((isl, i) => assert.equal(c.at(isl), env[i], `isl=${isl}`));
  assert.deepEqual(env, one.us, "this curve is monotone: the envelope is the measured row");
  assert.deepEqual(notes.said, [], "an exact shape makes no note");
  const last = one.x[one.x.length - 1]!;
  assert.ok(Math.abs(c.at(2 * last) - 4 * c.at(last)) <= 1e-9 * c.at(2 * last), "beyond the grid: ∝ tokens²");
  assert.equal(notes.said.length, 1);
  assert.match(notes.said[0]!, /prefill attention context beyond 16384 tokens/);
});

test("prefill attention of an unmeasured head count is the nearest shape scaled by query heads, with a note", () => {
  const t = readTables("H100", "0.14.0");
  const one = batchOne(t.context["32/4/128"]!);
  const notes = recordingNotes();
  const c = prefillCurve(t.context, { heads: 28, kvHeads: 4, headDim: 128 }, notes);
  const env = envelope(one.us);
  one.x.forEach((isl, i) => assert.ok(Math.abs(c.at(isl) - (env[i]! * 28) / 32) <= 1e-9 * env[i]!, `isl=${isl}`));
  assert.deepEqual(notes.said, ["prefill attention heads/kv-heads/head-dim 28/4/128 scaled from 32/4/128"]);
});

/** A decode row at context x: its envelope on its measured contexts, linear beyond its last one. */
function decodeRowAt(d: CurveData, x: number): number {
  const env = envelope(d.us);
  const i = d.x.indexOf(x);
  if (i >= 0) return env[i]!;
  const last = d.x[d.x.length - 1]!;
  assert.ok(x > last, `context ${x} inside the row but not measured`);
  return (env[env.length - 1]! * x) / last;
}

test("decode attention at a measured batch size and context: the fastest of that row and every larger batch's row there (H100 0.14.0, 32/8/128)", () => {
  const t = readTables("H100", "0.14.0");
  const rows = t.generation["32/8/128"]!;
  const s = new DecodeSurface(t.generation, { heads: 32, kvHeads: 8, headDim: 128 }, recordingNotes());
  const batches = Object.keys(rows)
    .map(Number)
    .sort((a, b) => a - b);
  // In this table every row's contexts are the first contexts of the batch-1 row's (larger batches
  // were measured at fewer lengths), so the union of contexts is the batch-1 row's.
  const union = rows["1"]!.x;
  for (const b of batches)
    assert.deepEqual(rows[String(b)]!.x, union.slice(0, rows[String(b)]!.x.length), `batch ${b}`);
  let lowered = 0;
  for (const b of batches) {
    for (const ctx of union) {
      const above = batches.filter((bb) => bb >= b).map((bb) => decodeRowAt(rows[String(bb)]!, ctx));
      const expected = Math.min(...above);
      if (expected < above[0]!) lowered++;
      // Exact where a measured value is taken; a scaled one may differ in the last bit.
      assert.ok(
        Math.abs(s.at(b, ctx) - expected) <= 1e-12 * expected,
        `batch ${b} context ${ctx}: ${s.at(b, ctx)} vs ${expected}`,
      );
    }
  }
  // Some cells really take a larger batch's time (e.g. batch 16 at 32767: batch 32 scaled linearly).
  assert.ok(lowered > 0, "no cell lowered by a larger batch: the test exercises nothing");
  assert.equal(s.at(1, 1), Math.min(...batches.map((bb) => envelope(rows[String(bb)]!.us)[0]!)));
  // Between two measured batch sizes at a measured context: the geometric interpolation of the two rows.
  const expected = Math.sqrt(s.at(16, 1023) * s.at(32, 1023));
  assert.ok(Math.abs(s.at(Math.sqrt(16 * 32), 1023) - expected) <= 1e-9 * expected);
  assert.equal(s.at(16, 1023), envelope(rows["16"]!.us)[9], "batch 16 at 1023 is its own measurement");
});

test("decode attention (property): never shorter with a larger batch or a longer context (H100 0.14.0, 32/8/128)", () => {
  const t = readTables("H100", "0.14.0");
  const s = new DecodeSurface(t.generation, { heads: 32, kvHeads: 8, headDim: 128 }, recordingNotes());
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 4096 }),
      fc.integer({ min: 1, max: 4096 }),
      fc.integer({ min: 1, max: 70000 }),
      fc.integer({ min: 1, max: 70000 }),
      (b1, b2, c1, c2) => {
        const [bl, bh] = b1 <= b2 ? [b1, b2] : [b2, b1];
        const [cl, ch] = c1 <= c2 ? [c1, c2] : [c2, c1];
        assert.ok(s.at(bl, cl) <= s.at(bh, cl) * (1 + 1e-12), `context ${cl}: batch ${bl} > batch ${bh}`);
        assert.ok(s.at(bl, cl) <= s.at(bl, ch) * (1 + 1e-12), `batch ${bl}: context ${cl} > context ${ch}`);
      },
    ),
    { seed: FC_SEED, numRuns: 500 },
  );
});

test("decode attention beyond the longest measured context scales linearly from it, with a note naming it", () => {
  const t = readTables("H100", "0.14.0");
  const notes = recordingNotes();
  const s = new DecodeSurface(t.generation, { heads: 32, kvHeads: 8, headDim: 128 }, notes);
  // Batch 16 was measured up to 16383 only: up to 32767 (the longest context of any batch) it stays
  // on the grid, taking linear scaling of its own row or a larger batch's, with no note.
  s.at(16, 30000);
  assert.deepEqual(notes.said, []);
  assert.ok(Math.abs(s.at(4, 65534) - 2 * s.at(4, 32767)) <= 1e-9 * s.at(4, 65534));
  // Each batch row notes on its first query beyond (a run prints the line once).
  assert.ok(notes.said.length > 0);
  assert.deepEqual(
    new Set(notes.said),
    new Set(["decode attention context beyond 32767 tokens, scaled linearly from 32767"]),
  );
});

test("decode attention (property): the log-domain evaluation equals interpolating along the context in each row, then between the rows (H100 0.24.0, 32/8/128)", () => {
  const t = readTables("H100", "0.24.0");
  const rows = t.generation["32/8/128"]!;
  const s = new DecodeSurface(t.generation, { heads: 32, kvHeads: 8, headDim: 128 }, recordingNotes());
  // The reference: the rows on their common grid, each the lower envelope of itself and the larger batches' rows.
  const batches = Object.keys(rows)
    .map(Number)
    .sort((a, b) => a - b);
  const measured = batches.map((b) => new Curve(rows[String(b)]!.x, rows[String(b)]!.us, 1));
  const grid = [...new Set(measured.flatMap((c) => Array.from(c.xs)))].sort((a, b) => a - b);
  const values = measured.map((c) => grid.map((x) => c.at(x)));
  for (let r = values.length - 2; r >= 0; r--) values[r] = values[r]!.map((v, i) => Math.min(v, values[r + 1]![i]!));
  const curves = values.map((ys) => new Curve(grid, ys, 1));
  const reference = (b: number, ctx: number): number => {
    const i = floorIndex(batches, b);
    const j = Math.min(i + 1, batches.length - 1);
    const a = curves[i]!.at(ctx);
    return i === j
      ? between(a, a, batches[i]!, batches[i]!, b, 1)
      : between(a, curves[j]!.at(ctx), batches[i]!, batches[j]!, b, 1);
  };
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2048 }), fc.integer({ min: 1, max: 200000 }), (b, ctx) => {
      const want = reference(b, ctx);
      assert.ok(Math.abs(s.at(b, ctx) - want) <= 1e-12 * want, `batch ${b} context ${ctx}: ${s.at(b, ctx)} vs ${want}`);
    }),
    { seed: FC_SEED, numRuns: 2000 },
  );
  for (const b of batches)
    for (const ctx of grid) assert.equal(s.at(b, ctx), reference(b, ctx), `measured point batch ${b} context ${ctx}`);
});

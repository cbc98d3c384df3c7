// The composition reads the measured tables exactly (docs/latency.md "Composition"): a GEMM whose
// weight shape is on the grid is the table's row, attention at a measured length is the table's
// value; between grid shapes the time is log-log interpolated. Expected values come from the JSON
// files in data/kernels, parsed here.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DecodeSurface, prefillCurve } from "../../../src/latency/kernels/attention.js";
import { gemmCurve } from "../../../src/latency/kernels/gemm.js";
import type { CurveData, GemmGrid } from "../../../src/latency/kernels/tables.js";
import { readTables, recordingNotes } from "./helpers.js";

const cellOf = (g: GemmGrid, mi: number, ni: number, ki: number): number | null => g.us[(mi * g.n.length + ni) * g.k.length + ki] ?? null;

/** The running maximum: a kernel is not faster with more work. */
function envelope(ys: readonly number[]): number[] {
  let max = 0;
  return ys.map((y) => (max = Math.max(max, y)));
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
      // Where the row rises the envelope is the measured value itself; where noise dips, the max so far.
      g.m.forEach((m, mi) => assert.equal(c.at(m), env[mi], `n=${g.n[ni]} k=${g.k[ki]} m=${m} (measured ${row[mi]})`));
    }
  });
}

test("gemm: Llama-3.1-8B's QKV at TP1 (n=6144, k=4096, on the grid) reads H100 bf16 cells verbatim", () => {
  const g = readTables("H100", "0.14.0").gemm["bfloat16"]!;
  const c = gemmCurve(g, 6144, 4096, recordingNotes(), "QKV");
  const [ni, ki] = [g.n.indexOf(6144), g.k.indexOf(4096)];
  for (const m of [64, 512, 1024, 2048, 8192]) assert.equal(c.at(m), cellOf(g, g.m.indexOf(m), ni, ki), `m=${m}`);
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
  g.m.forEach((m, mi) => assert.ok(Math.abs(c.at(m) - expected[mi]!) <= 1e-9 * expected[mi]!, `m=${m}: ${c.at(m)} vs ${expected[mi]}`));
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

test("decode attention at a measured batch size and context is the table's value (H100 0.14.0, 32/8/128)", () => {
  const t = readTables("H100", "0.14.0");
  const rows = t.generation["32/8/128"]!;
  const s = new DecodeSurface(t.generation, { heads: 32, kvHeads: 8, headDim: 128 }, recordingNotes());
  for (const b of Object.keys(rows)) {
    const d = rows[b]!;
    const env = envelope(d.us);
    d.x.forEach((ctx, i) => {
      if (ctx >= 1) assert.equal(s.at(Number(b), ctx), env[i], `batch ${b} context ${ctx}`);
    });
  }
  // Between two measured batch sizes at a measured context: the geometric interpolation.
  const [a, b] = [rows["16"]!, rows["32"]!];
  const i = a.x.indexOf(1023);
  const j = b.x.indexOf(1023);
  const expected = Math.sqrt(envelope(a.us)[i]! * envelope(b.us)[j]!);
  assert.ok(Math.abs(s.at(Math.sqrt(16 * 32), 1023) - expected) <= 1e-9 * expected);
});

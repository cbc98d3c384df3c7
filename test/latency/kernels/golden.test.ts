// Golden step times of the kernels model on H100 with vLLM 0.14.0 tables and the bundled overheads
// (docs/latency.md "Kernels"). The pinned numbers come from the implementation; the Llama-3.1-8B
// ones are also recomposed here by hand from the JSON tables, so they are checked, not just kept.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { StepRequestView } from "../../../src/latency/model.js";
import type { GemmGrid } from "../../../src/latency/kernels/tables.js";
import { DATA_DIR } from "../helpers.js";
import { chunk, decodes, LLAMA_70B, LLAMA_8B, MIXTRAL, readTables, resolveKernels } from "./helpers.js";

/** (a) one 1024-token prefill from scratch. */
const PREFILL: StepRequestView[] = [chunk(0, 1024)];
/** (b) 32 decodes at context 1000. */
const DECODE: StepRequestView[] = decodes(32, 1000);
/** (c) a 512-token chunk after 1024 cached tokens, beside 16 decodes at context 2000. */
const MIXED: StepRequestView[] = [chunk(1024, 512), ...decodes(16, 2000)];

const GOLDEN = [
  { name: "Llama-3.1-8B TP1", model: LLAMA_8B, tp: 1, prefill: 21730, decode: 8353, mixed: 14088 },
  { name: "Llama-3.1-70B TP4", model: LLAMA_70B, tp: 4, prefill: 70478, decode: 18628, mixed: 43215 },
  { name: "Mixtral-8x7B TP2", model: MIXTRAL, tp: 2, prefill: 30761, decode: 18927, mixed: 25941 },
];

async function stepTimes(model: string, tp: number, vllmVersion: string): Promise<[number, number, number]> {
  const m = (await resolveKernels(model, "H100", tp, { vllmVersion })).r.build();
  return [PREFILL, DECODE, MIXED].map((b) => m.stepTime(b, b.length)) as [number, number, number];
}

for (const g of GOLDEN) {
  test(`golden (${g.name}, H100 vLLM 0.14.0): prefill 1024, decode 32 @ 1000, mixed 512 after 1024 + 16 @ 2000`, async () => {
    assert.deepEqual(await stepTimes(g.model, g.tp, "0.14.0"), [g.prefill, g.decode, g.mixed]);
  });
}

test("golden: the default vLLM version is the oldest table (0.14.0 on H100)", async () => {
  const m = (await resolveKernels(LLAMA_8B, "H100", 1)).r.build();
  assert.equal(m.stepTime(PREFILL, 1), GOLDEN[0]!.prefill);
});

test("golden: orders of magnitude a GPU allows (prefill above the dense-peak time, decode above the weight read)", () => {
  // Llama-3.1-8B: 2 · 6.98e9 FLOP per token at 989 TFLOP/s; 16.06 GB of bf16 weights at 3.35 TB/s.
  const peakUs = ((2 * 6.979e9 * 1024) / 989e12) * 1e6;
  const readUs = (16.06e9 / 3.35e12) * 1e6;
  assert.ok(
    GOLDEN[0]!.prefill > peakUs && GOLDEN[0]!.prefill < 3 * peakUs,
    `prefill ${GOLDEN[0]!.prefill} vs ${peakUs.toFixed(0)} µs at peak`,
  );
  assert.ok(
    GOLDEN[0]!.decode > readUs && GOLDEN[0]!.decode < 3 * readUs,
    `decode ${GOLDEN[0]!.decode} vs ${readUs.toFixed(0)} µs weight read`,
  );
});

// ---- Llama-3.1-8B on H100 recomposed from data/kernels/h100_sxm/0.14.0.json ----

const T = readTables("H100", "0.14.0");
const G = T.gemm["bfloat16"]!;
const L = 32;
const D = 4096;
const F = 14336;
const VOCAB = 128256;
const OVERHEADS = parse(fs.readFileSync(path.join(DATA_DIR, "kernels", "overheads.yaml"), "utf8")) as {
  kernels_coefficients: { beta_coeffs: number[] };
};

const cell = (g: GemmGrid, m: number, n: number, k: number): number => {
  const v = g.us[(g.m.indexOf(m) * g.n.length + g.n.indexOf(n)) * g.k.length + g.k.indexOf(k)];
  assert.ok(typeof v === "number", `cell m=${m} n=${n} k=${k}`);
  return v;
};
/** The point a fraction f of the way from a to b in log space. */
const geo = (a: number, b: number, f: number): number => Math.pow(a, 1 - f) * Math.pow(b, f);
const frac = (x: number, x0: number, x1: number): number => Math.log(x / x0) / Math.log(x1 / x0);

/** A GEMM time at a grid m: the shape's cell, or the log-log blend of the neighbouring grid shapes. */
function gemmAtGridM(m: number, n: number, k: number): number {
  const between = (v: number, grid: number[]): [number, number] => {
    const hi = grid.findIndex((x) => x >= v);
    return grid[hi] === v ? [v, v] : [grid[hi - 1]!, grid[hi]!];
  };
  const [n0, n1] = between(n, G.n);
  const [k0, k1] = between(k, G.k);
  const alongK = (nn: number): number =>
    k0 === k1 ? cell(G, m, nn, k0) : geo(cell(G, m, nn, k0), cell(G, m, nn, k1), frac(k, k0, k1));
  return n0 === n1 ? alongK(n0) : geo(alongK(n0), alongK(n1), frac(n, n0, n1));
}

/**
 * GEMM time at any m up to the grid's end: at a grid m the fastest of that m and every larger grid
 * m (the lower envelope), log-log between grid m.
 */
function gemm(m: number, n: number, k: number): number {
  const env = (i: number): number => Math.min(...G.m.slice(i).map((mm) => gemmAtGridM(mm, n, k)));
  const hi = G.m.findIndex((x) => x >= m);
  return G.m[hi] === m ? env(hi) : geo(env(hi - 1), env(hi), frac(m, G.m[hi - 1]!, G.m[hi]!));
}

/** µs of everything per token count m: four GEMMs per layer and the memory-bound elementwise passes. */
function tokenCosts(m: number): number {
  const layer = gemm(m, 6144, D) + gemm(m, D, D) + gemm(m, 2 * F, D) + gemm(m, D, F);
  const elementwise = (m * L * 2 * (10 * D + 3 * F)) / 3.35e6; // bytes / (bytes per µs)
  return L * layer + elementwise;
}

/** The LM head: 128256 rows are two GEMMs of 64128 rows (the grid ends at 65536). */
const lmHead = (rows: number): number => 2 * gemm(rows, VOCAB / 2, D);

/** Log-log interpolation of grid values ys (at xs) at x inside the grid. */
function onGrid(xs: readonly number[], ys: readonly number[], x: number): number {
  const hi = xs.findIndex((v) => v >= x);
  return xs[hi] === x ? ys[hi]! : geo(ys[hi - 1]!, ys[hi]!, frac(x, xs[hi - 1]!, xs[hi]!));
}

/** The lower envelope: each point the fastest of itself and every later point. */
const lower = (ys: readonly number[]): number[] => ys.map((_, i) => Math.min(...ys.slice(i)));

/** Full-prefill attention P(s) of one sequence: the batch-1 context row's envelope, log-log between. */
function prefill(s: number): number {
  const c = T.context["32/8/128"]!["1"]!;
  return onGrid(c.x, lower(c.us), s);
}

/**
 * Decode attention of a measured batch size b at context x: on the union of the measured contexts,
 * the fastest of the rows of batch ≥ b (each row its envelope, linear beyond its last context), and
 * log-log between those contexts.
 */
function decodeAttention(b: number, x: number): number {
  const rows = T.generation["32/8/128"]!;
  const union = [...new Set(Object.values(rows).flatMap((r) => r.x))].sort((p, q) => p - q);
  const rowAt = (r: { x: number[]; us: number[] }, u: number): number => {
    const env = lower(r.us);
    const last = r.x[r.x.length - 1]!;
    return u > last ? (env[env.length - 1]! * u) / last : onGrid(r.x, env, u);
  };
  const larger = Object.keys(rows).filter((k) => Number(k) >= b);
  assert.ok(larger.includes(String(b)), `batch ${b} is measured`);
  return onGrid(
    union,
    union.map((u) => Math.min(...larger.map((k) => rowAt(rows[k]!, u)))),
    x,
  );
}

/**
 * The rise Q(s) of the lower convex hull of P above its first point, written as what the hull is:
 * at s, the lowest chord between two measured points on either side of s (inside the grid).
 */
function convexRise(s: number): number {
  const c = T.context["32/8/128"]!["1"]!;
  const ys = lower(c.us);
  assert.ok(s <= c.x[c.x.length - 1]!, "inside the grid");
  let best = Infinity;
  for (let i = 0; i < c.x.length; i++) {
    for (let j = i; j < c.x.length; j++) {
      if (c.x[i]! > s || c.x[j]! < s) continue;
      const y = i === j ? ys[i]! : ys[i]! + ((ys[j]! - ys[i]!) * (s - c.x[i]!)) / (c.x[j]! - c.x[i]!);
      best = Math.min(best, y);
    }
  }
  return best - ys[0]!;
}

const fixedOverhead = (): number =>
  OVERHEADS.kernels_coefficients.beta_coeffs[0]! + L * OVERHEADS.kernels_coefficients.beta_coeffs[1]!;

/** Within this of the pinned values: truncation to whole µs plus float rounding. */
const TOLERANCE_US = 1;

test("golden (Llama-3.1-8B, recomposed): (a) prefill = 32·(QKV+O+gate/up+down)(1024) + elementwise + LM head(1) + 32·chunk attention(0, 1024) + overheads", () => {
  // A chunk from scratch: the larger of the hull's rise Q(1024) and the chunk alone P(1024).
  const chunkAttention = Math.max(convexRise(1024), prefill(1024));
  const hand = tokenCosts(1024) + lmHead(1) + L * chunkAttention + fixedOverhead();
  assert.ok(Math.abs(hand - GOLDEN[0]!.prefill) <= TOLERANCE_US, `hand ${hand.toFixed(2)} vs ${GOLDEN[0]!.prefill}`);
  // Its parts: the measured attention cell and the on-grid QKV cell are read as they are (no larger
  // prompt or m was measured faster).
  assert.equal(prefill(1024), 44.896);
  assert.equal(gemm(1024, 6144, D), cell(G, 1024, 6144, D));
  // The hull never rises above P: a prompt from scratch costs its measured time.
  assert.ok(convexRise(1024) <= prefill(1024) - prefill(1) + 1e-9, String(convexRise(1024)));
  assert.equal(chunkAttention, prefill(1024));
});

test("golden (Llama-3.1-8B, recomposed): (b) 32 decodes = token costs(32) + LM head(32) + 32·decode attention(batch 32, context 1001) + overheads", () => {
  // The decode context is the cached tokens plus the new one.
  const hand = tokenCosts(32) + lmHead(32) + L * decodeAttention(32, 1001) + fixedOverhead();
  assert.ok(Math.abs(hand - GOLDEN[0]!.decode) <= TOLERANCE_US, `hand ${hand.toFixed(2)} vs ${GOLDEN[0]!.decode}`);
});

test("golden (Llama-3.1-8B, recomposed): (c) mixed = token costs(528) + LM head(17) + 32·(chunk attention + decode attention(16, 2001)) + overheads", () => {
  // The chunk's attention: the larger of the hull's rise Q(1536) − Q(1024), the chunk alone P(512),
  // and one decode reading the 1024 cached tokens.
  const chunkAttention = Math.max(convexRise(1536) - convexRise(1024), prefill(512), decodeAttention(1, 1024));
  const hand = tokenCosts(528) + lmHead(17) + L * (chunkAttention + decodeAttention(16, 2001)) + fixedOverhead();
  assert.ok(Math.abs(hand - GOLDEN[0]!.mixed) <= TOLERANCE_US, `hand ${hand.toFixed(2)} vs ${GOLDEN[0]!.mixed}`);
});

test("golden: vLLM 0.24 tables give other step times than 0.14.0", async () => {
  const newer = await stepTimes(LLAMA_8B, 1, "0.24");
  const g = GOLDEN[0]!;
  assert.notDeepEqual(newer, [g.prefill, g.decode, g.mixed]);
  for (const t of newer) assert.ok(t > 0 && Number.isInteger(t));
});

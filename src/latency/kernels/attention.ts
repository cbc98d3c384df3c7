// Attention times from the measured tables (docs/latency.md "Kernels"): prefill ("context")
// attention over the prompt positions of a chunk, decode ("generation") attention over a decode
// batch and its cached context.

import { ContextMemo } from "./contextMemo.js";
import { Curve, floorIndex } from "./curve.js";
import type { Extrapolations } from "./gemm.js";
import type { AttentionTable, CurveData } from "./tables.js";

export interface AttentionShape {
  /** Query heads per GPU. */
  heads: number;
  /** KV heads per GPU (at least 1). */
  kvHeads: number;
  headDim: number;
}

const keyOf = (h: number, kv: number, dh: number): string => `${h}/${kv}/${dh}`;

/**
 * The measured shape closest to the wanted one, and the factor that scales its time: prefill
 * attention is compute-bound (∝ query heads · head size), decode attention reads the KV cache
 * (∝ KV heads · head size).
 */
function nearestShape(table: AttentionTable, s: AttentionShape, decode: boolean, notes: Extrapolations, kind: string) {
  const exact = table[keyOf(s.heads, s.kvHeads, s.headDim)];
  if (exact !== undefined) return { rows: exact, scale: 1, contextScale: 1 };
  let best: { key: string; cost: number } | undefined;
  for (const key of Object.keys(table)) {
    const [h, kv, dh] = key.split("/").map(Number) as [number, number, number];
    const cost =
      Math.abs(Math.log(h / s.heads)) + Math.abs(Math.log(kv / s.kvHeads)) + 4 * Math.abs(Math.log(dh / s.headDim));
    if (best === undefined || cost < best.cost) best = { key, cost };
  }
  if (best === undefined) throw new Error(`kernel tables: no ${kind} attention measured`);
  const [h, kv, dh] = best.key.split("/").map(Number) as [number, number, number];
  notes.add(
    `${kind} attention heads/kv-heads/head-dim ${keyOf(s.heads, s.kvHeads, s.headDim)} scaled from ${best.key}`,
  );
  // Decode attention reads the KV cache: more KV heads read as much as a longer context of the
  // measured shape (its fixed cost stays). Prefill attention computes: time scales with query heads.
  if (decode) return { rows: table[best.key]!, scale: 1, contextScale: (s.kvHeads * s.headDim) / (kv * dh) };
  return { rows: table[best.key]!, scale: (s.heads * s.headDim) / (h * dh), contextScale: 1 };
}

function scaledCurve(d: CurveData, scale: number, exponent: number, beyond?: () => void): Curve {
  return new Curve(
    d.x.map((x) => Math.max(x, 1)),
    d.us.map((u) => u * scale),
    exponent,
    beyond,
  );
}

/**
 * Prefill attention of one chunk (docs/latency.md "Kernels"): n new prompt rows after c cached ones.
 * The rows' own causal work is the rise of the full-prefill curve P from c to c + n, taken on the
 * lower convex hull of P's grid points (the greatest convex function under them: it runs through
 * the first and last points and never above P), so a chunk never gets cheaper as its cached
 * context grows and a prompt from scratch costs P; at least the chunk alone, P(n); at least
 * reading the cached KV, decode attention of one sequence at c.
 */
export class PrefillAttention {
  private readonly xs: Float64Array;
  /** Convex rise Q at xs (on the hull), and the slope of the segment ending at each x (µs per token). */
  private readonly q: Float64Array;
  private readonly slope: Float64Array;

  constructor(
    private readonly full: Curve,
    private readonly decode: DecodeSurface,
  ) {
    this.xs = full.xs;
    const n = this.xs.length;
    const hull = lowerHull(this.xs, full.ys);
    this.q = new Float64Array(n);
    this.slope = new Float64Array(n);
    let h = 0;
    for (let i = 0; i < n; i++) {
      while (h + 1 < hull.length && this.xs[hull[h + 1]!]! < this.xs[i]!) h++;
      const a = hull[h]!;
      const b = hull[Math.min(h + 1, hull.length - 1)]!;
      const k = b === a ? 0 : (full.ys[b]! - full.ys[a]!) / (this.xs[b]! - this.xs[a]!);
      this.q[i] = full.ys[a]! - full.ys[0]! + k * (this.xs[i]! - this.xs[a]!);
      this.slope[i] = i === 0 ? 0 : k;
    }
  }

  /** Q(s): 0 up to the first point, convex, beyond the grid at least the tokens² growth of P. */
  private rise(s: number): number {
    const xs = this.xs;
    const n = xs.length;
    if (s <= xs[0]!) return 0;
    if (s >= xs[n - 1]!) {
      const d = s - xs[n - 1]!;
      return this.q[n - 1]! + Math.max(this.slope[n - 1]! * d, this.full.at(s) - this.full.ys[n - 1]!);
    }
    const i = floorIndex(xs, s);
    return this.q[i]! + this.slope[i + 1]! * (s - xs[i]!);
  }

  chunk(c: number, n: number): number {
    const own = this.full.at(n);
    const rows = this.rise(c + n) - this.rise(c);
    const read = c > 0 ? this.decode.at(1, c) : 0;
    return Math.max(rows, own, read);
  }
}

/** Indices of the lower convex hull of the points (xs increasing), first and last included. */
function lowerHull(xs: ArrayLike<number>, ys: ArrayLike<number>): number[] {
  const hull: number[] = [];
  const cross = (o: number, a: number, b: number): number =>
    (xs[a]! - xs[o]!) * (ys[b]! - ys[o]!) - (ys[a]! - ys[o]!) * (xs[b]! - xs[o]!);
  for (let i = 0; i < xs.length; i++) {
    while (hull.length >= 2 && cross(hull[hull.length - 2]!, hull[hull.length - 1]!, i) <= 0) hull.pop();
    hull.push(i);
  }
  return hull;
}

/** Prefill attention of one sequence of s prompt tokens (the batch-1 curve; t ∝ s² beyond it). */
export function prefillCurve(table: AttentionTable, s: AttentionShape, notes: Extrapolations): Curve {
  const { rows, scale } = nearestShape(table, s, false, notes, "prefill");
  const one = rows["1"] ?? rows[Object.keys(rows).sort((a, b) => Number(a) - Number(b))[0]!]!;
  const last = one.x[one.x.length - 1]!;
  return scaledCurve(
    one,
    scale,
    2,
    notes.lazy(`prefill attention context beyond ${last} tokens, scaled as tokens² from ${last}`),
  );
}

/**
 * Decode attention over batch sizes: one context curve per measured batch size, all on the union
 * of the measured contexts. A smaller batch never takes longer than a larger one at the same
 * context (it can run the larger batch's kernel), so each row is the lower envelope of itself and
 * the rows above it, as along the context (curve.ts).
 */
export class DecodeSurface {
  private readonly batches: Float64Array;
  private readonly curves: Curve[];
  /** Measured context per context of this shape (more KV heads than the measured shape: > 1). */
  private readonly contextScale: number;
  /** The rows' common context grid, its logarithms, and each row's log times on it. */
  private readonly grid: Float64Array;
  private readonly logGrid: Float64Array;
  private readonly logRows: Float64Array[];
  /** Per integer batch size (filled on first use): rows i, j, weight f of row j, and log factor beyond the rows. */
  private readonly weights = new BatchWeights();
  private readonly memo = new ContextMemo(2);
  private beyond: (() => void) | undefined;

  constructor(table: AttentionTable, s: AttentionShape, notes: Extrapolations) {
    const { rows, scale, contextScale } = nearestShape(table, s, true, notes, "decode");
    this.contextScale = contextScale;
    const sizes = Object.keys(rows)
      .map(Number)
      .sort((a, b) => a - b);
    this.batches = Float64Array.from(sizes);
    const measured = sizes.map((b) => scaledCurve(rows[String(b)]!, scale, 1));
    const grid = [...new Set(measured.flatMap((c) => Array.from(c.xs)))].sort((a, b) => a - b);
    const values: number[][] = measured.map((c) => grid.map((x) => c.at(x)));
    for (let r = values.length - 2; r >= 0; r--) values[r] = values[r]!.map((v, i) => Math.min(v, values[r + 1]![i]!));
    const last = grid[grid.length - 1]!;
    this.beyond = notes.lazy(`decode attention context beyond ${last} tokens, scaled linearly from ${last}`);
    this.curves = values.map((ys) => new Curve(grid, ys, 1));
    this.grid = Float64Array.from(grid);
    this.logGrid = this.grid.map(Math.log);
    this.logRows = this.curves.map((c) => c.ys.map(Math.log));
  }

  get maxBatch(): number {
    return this.batches[this.batches.length - 1]!;
  }

  /**
   * µs for `batch` decodes whose cached contexts average `context` tokens: log–log interpolation
   * along the context in the two measured batch rows around `batch`, then log–log between them
   * (curve.ts's rules; beyond the grid linear in context, beyond the largest batch linear in
   * batch), done in the log domain: one logarithm and one exponential per call, made once per
   * small batch size and context (contextMemo.ts).
   */
  at(batch: number, tokens: number): number {
    const memo = this.memo;
    const s = memo.slot(batch, tokens);
    if (s < 0) return this.interpolate(batch, tokens);
    if (memo.has(batch, s, tokens)) return memo.value(batch, s);
    const t = this.interpolate(batch, tokens);
    memo.keep(batch, s, tokens, t);
    return t;
  }

  /** at() computed. */
  private interpolate(batch: number, tokens: number): number {
    const w = this.weights.of(batch, this.batches);
    const i = w.i;
    const rowI = this.logRows[i]!;
    const rowJ = this.logRows[w.j]!;
    const f = w.f;
    const x = tokens * this.contextScale;
    const xs = this.grid;
    const n = xs.length;
    let lo = 0;
    let g = 0;
    let over = w.over;
    if (x >= xs[n - 1]!) {
      lo = n - 1;
      if (x !== xs[lo]!) over += this.noteBeyond(Math.log(x) - this.logGrid[lo]!);
    } else if (x > xs[0]!) {
      lo = floorIndex(xs, x);
      if (x !== xs[lo]!) g = (Math.log(x) - this.logGrid[lo]!) / (this.logGrid[lo + 1]! - this.logGrid[lo]!);
    }
    // On a measured point of a measured row: the measurement itself.
    if (g === 0 && f === 0 && over === 0) return this.curves[i]!.ys[lo]!;
    const hi = g === 0 ? lo : lo + 1;
    const la = rowI[lo]! + g * (rowI[hi]! - rowI[lo]!);
    const lb = rowJ[lo]! + g * (rowJ[hi]! - rowJ[lo]!);
    return Math.exp(la + f * (lb - la) + over);
  }

  private noteBeyond(over: number): number {
    if (this.beyond !== undefined) {
      const note = this.beyond;
      this.beyond = undefined;
      note();
    }
    return over;
  }

  /** The longest context measured at the largest batch size's neighbours (for start-up notes). */
  maxContext(batch: number): number {
    return this.curves[floorIndex(this.batches, batch)]!.last / this.contextScale;
  }
}

/** How a batch size sits between the measured batch rows, per integer size, computed once. */
class BatchWeights {
  private readonly cache: { i: number; j: number; f: number; over: number }[] = [];

  of(batch: number, batches: Float64Array): { i: number; j: number; f: number; over: number } {
    const k = batch | 0;
    if (k === batch && k >= 0 && k < 65536) return (this.cache[k] ??= BatchWeights.compute(batch, batches));
    return BatchWeights.compute(batch, batches);
  }

  /** Row weights of curve.ts's between(): below the rows the first, beyond them the last scaled linearly. */
  private static compute(v: number, batches: Float64Array): { i: number; j: number; f: number; over: number } {
    const last = batches.length - 1;
    if (v <= batches[0]!) return { i: 0, j: 0, f: 0, over: 0 };
    if (v >= batches[last]!)
      return { i: last, j: last, f: 0, over: v === batches[last]! ? 0 : Math.log(v / batches[last]!) };
    const i = floorIndex(batches, v);
    if (v === batches[i]!) return { i, j: i, f: 0, over: 0 };
    return { i, j: i + 1, f: Math.log(v / batches[i]!) / Math.log(batches[i + 1]! / batches[i]!), over: 0 };
  }
}

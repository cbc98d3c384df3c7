// Dense GEMM time for a weight shape n × k as a curve over m, the tokens of the step, from the
// measured (m, n, k) grid (docs/latency.md "Kernels"). Between grid values of n and k the
// time is log–log interpolated; beyond the grid it scales linearly with n or k (the work does).

import { between, Curve, floorIndex } from "./curve.js";
import type { GemmGrid } from "./tables.js";

/** Where a query leaves a grid, for the run's one-line extrapolation notes. */
export interface Extrapolations {
  /** A shape the run uses for sure lies outside the grid (reported at start-up). */
  add(dimension: string): void;
  /** A callback the curve calls the first time a query passes its last point (reported then). */
  lazy(dimension: string): () => void;
}

function cell(g: GemmGrid, mi: number, ni: number, ki: number): number | null {
  return g.us[(mi * g.n.length + ni) * g.k.length + ki] ?? null;
}

/** Time at (m index, k) for the n row ni; null when a needed cell was not measured. */
function alongK(g: GemmGrid, mi: number, ni: number, k: number): number | null {
  const k0 = floorIndex(g.k, k);
  const k1 = Math.min(k0 + 1, g.k.length - 1);
  const a = cell(g, mi, ni, k0);
  const b = cell(g, mi, ni, k1);
  if (a === null || b === null) return null;
  if (k0 === k1) return between(a, a, g.k[k0]!, g.k[k0]!, k, 1);
  return between(a, b, g.k[k0]!, g.k[k1]!, k, 1);
}

function atMIndex(g: GemmGrid, mi: number, n: number, k: number): number | null {
  const n0 = floorIndex(g.n, n);
  const n1 = Math.min(n0 + 1, g.n.length - 1);
  const a = alongK(g, mi, n0, k);
  const b = alongK(g, mi, n1, k);
  if (a === null || b === null) return null;
  if (n0 === n1) return between(a, a, g.n[n0]!, g.n[n0]!, n, 1);
  return between(a, b, g.n[n0]!, g.n[n1]!, n, 1);
}

/**
 * The m-curve of one weight shape. A weight wider than the grid (an LM head of 128k rows, say) is
 * priced as equal parts that are inside it: the same work in ⌈n / n_max⌉ (and ⌈k / k_max⌉) GEMMs.
 */
export function gemmCurve(g: GemmGrid, n: number, k: number, notes: Extrapolations, what: string): Curve {
  const nParts = Math.ceil(n / g.n[g.n.length - 1]!);
  const kParts = Math.ceil(k / g.k[g.k.length - 1]!);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let mi = 0; mi < g.m.length; mi++) {
    const t = atMIndex(g, mi, n / nParts, k / kParts);
    if (t === null) continue;
    xs.push(g.m[mi]!);
    ys.push(t * nParts * kParts);
  }
  if (xs.length === 0) throw new Error(`kernel tables: no measured GEMM around n=${n}, k=${k}`);
  return new Curve(
    xs,
    ys,
    1,
    notes.lazy(`GEMM m (tokens per step) beyond ${xs[xs.length - 1]} for ${what}, scaled linearly`),
  );
}

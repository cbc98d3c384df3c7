// Points of a search space: the Latin hypercube initial design, the map from the unit cube to
// parameter values and back to the GP's feature space, and random / local candidate points.

import type { Rng } from "../engine/rng.js";
import type { Parameter, ParamValue } from "./parameters.js";
import type { OptimizeSpace } from "./space.js";
import type { EvalRecord } from "./store.js";

/** Parameter values in parameter order (numbers; category labels for categoricals). */
export type Point = ParamValue[];

/** Continuous values are rounded to this many significant digits (exact in command lines). */
export const SIGNIFICANT_DIGITS = 4;

/**
 * A Latin hypercube of n points in [0,1)^d: in every dimension each of the n strata
 * [k/n, (k+1)/n) holds exactly one point (a random permutation of strata per dimension, a uniform
 * position inside each stratum).
 */
export function latinHypercube(n: number, d: number, rng: Rng): number[][] {
  const pts: number[][] = Array.from({ length: n }, () => new Array<number>(d).fill(0));
  for (let j = 0; j < d; j++) {
    const perm = Array.from({ length: n }, (_, k) => k);
    for (let k = n - 1; k > 0; k--) {
      const r = rng.intn(k + 1);
      [perm[k], perm[r]] = [perm[r]!, perm[k]!];
    }
    for (let i = 0; i < n; i++) pts[i]![j] = (perm[i]! + rng.float64()) / n;
  }
  return pts;
}

function roundSig(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  return Number(v.toPrecision(SIGNIFICANT_DIGITS));
}

/** The parameter value at position u ∈ [0,1) of its range (log-uniform when `log`). */
export function decodeUnit(p: Parameter, u: number): ParamValue {
  const uu = Math.min(Math.max(u, 0), 1);
  if (p.type === "categorical")
    return p.categories[Math.min(p.categories.length - 1, Math.floor(uu * p.categories.length))]!.label;
  if (p.type === "integer") {
    let v: number;
    if (p.log) {
      // Log-uniform over [min - 0.5, max + 0.5) so that the end values get their share.
      const lo = Math.log(Math.max(p.min - 0.5, p.min / 2));
      const hi = Math.log(p.max + 0.5);
      v = Math.round(Math.exp(lo + uu * (hi - lo)));
    } else v = Math.floor(p.min + uu * (p.max - p.min + 1));
    return Math.min(p.max, Math.max(p.min, v));
  }
  const v = p.log ? Math.exp(Math.log(p.min) + uu * (Math.log(p.max) - Math.log(p.min))) : p.min + uu * (p.max - p.min);
  return Math.min(p.max, Math.max(p.min, roundSig(v)));
}

export function decodePoint(params: readonly Parameter[], u: readonly number[]): Point {
  return params.map((p, j) => decodeUnit(p, u[j]!));
}

/** Number of GP features: one per numeric parameter, one per category (one-hot). */
export function featureCount(params: readonly Parameter[]): number {
  return params.reduce((s, p) => s + (p.type === "categorical" ? p.categories.length : 1), 0);
}

/** Feature index ranges per parameter (for per-parameter length scales). */
export function featureGroups(params: readonly Parameter[]): number[] {
  const out: number[] = [];
  params.forEach((p, j) => {
    const n = p.type === "categorical" ? p.categories.length : 1;
    for (let k = 0; k < n; k++) out.push(j);
  });
  return out;
}

/** GP features of a point: numeric values scaled to [0,1] (log scale when `log`), categoricals one-hot. */
export function encodePoint(params: readonly Parameter[], pt: Point): number[] {
  const out: number[] = [];
  params.forEach((p, j) => {
    const v = pt[j]!;
    if (p.type === "categorical") {
      for (const c of p.categories) out.push(c.label === v ? 1 : 0);
      return;
    }
    const x = v as number;
    const t = p.log
      ? (Math.log(x) - Math.log(p.min)) / (Math.log(p.max) - Math.log(p.min))
      : (x - p.min) / (p.max - p.min);
    out.push(Math.min(1, Math.max(0, t)));
  });
  return out;
}

/** Unit-cube position of a value (inverse of decodeUnit up to rounding; categoricals at their stratum centre). */
export function unitOf(p: Parameter, v: ParamValue): number {
  if (p.type === "categorical") {
    const k = p.categories.findIndex((c) => c.label === v);
    return (k + 0.5) / p.categories.length;
  }
  const x = v as number;
  if (p.type === "integer") {
    if (p.log) {
      const lo = Math.log(Math.max(p.min - 0.5, p.min / 2));
      const hi = Math.log(p.max + 0.5);
      return (Math.log(x) - lo) / (hi - lo);
    }
    return (x - p.min + 0.5) / (p.max - p.min + 1);
  }
  return p.log ? (Math.log(x) - Math.log(p.min)) / (Math.log(p.max) - Math.log(p.min)) : (x - p.min) / (p.max - p.min);
}

export function randomPoint(params: readonly Parameter[], rng: Rng): Point {
  return params.map((p) => decodeUnit(p, rng.float64()));
}

/**
 * A point near `pt`: numeric parameters move by a normal step of `scale` (in unit-cube terms,
 * reflected at the bounds), and each categorical switches to a random other value with
 * probability `flip`.
 */
export function perturbPoint(params: readonly Parameter[], pt: Point, rng: Rng, scale: number, flip: number): Point {
  return params.map((p, j) => {
    if (p.type === "categorical") {
      if (rng.float64() >= flip) return pt[j]!;
      const others = p.categories.filter((c) => c.label !== pt[j]);
      return others[rng.intn(others.length)]!.label;
    }
    let u = unitOf(p, pt[j]!) + scale * rng.normFloat64();
    while (u < 0 || u > 1) u = u < 0 ? -u : 2 - u;
    return decodeUnit(p, Math.min(u, 1 - 1e-12));
  });
}

/** Identity of a point (evaluation reuse, duplicate detection). */
export function pointKey(pt: Point): string {
  return JSON.stringify(pt);
}

/** Point ↔ name-keyed record. */
export function pointRecord(params: readonly Parameter[], pt: Point): Record<string, ParamValue> {
  const o: Record<string, ParamValue> = {};
  params.forEach((p, j) => (o[p.name] = pt[j]!));
  return o;
}

/** The point of a stored evaluation (parameter order). */
export function decodeFromRecord(space: OptimizeSpace, rec: EvalRecord): Point {
  return space.parameters.map((p) => rec.params[p.name]!);
}

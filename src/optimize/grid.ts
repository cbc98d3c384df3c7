// Distinct points of a search space. Every point is already on the parameter grid (integers,
// category labels, continuous values rounded by decodeUnit), so two points are the same
// configuration exactly when their keys are equal. A space of integer and categorical parameters
// is finite: it can be counted, enumerated and exhausted.

import { deriveStreamSeed, Rng } from "../engine/rng.js";
import { decodePoint, encodePoint, latinHypercube, pointKey, randomPoint, type Point } from "./design.js";
import type { Parameter, ParamValue } from "./parameters.js";
import type { OptimizeSpace } from "./space.js";

/** Finite spaces up to this many points are enumerated instead of sampled. */
export const ENUMERATE_LIMIT = 4096;

/** Random candidates for a design point that replaces a duplicate (spaces too large to enumerate). */
const FILL_CANDIDATES = 256;

/** The number of distinct points; Infinity when a parameter is continuous. */
export function spaceSize(params: readonly Parameter[]): number {
  let n = 1;
  for (const p of params) {
    if (p.type === "continuous") return Infinity;
    n *= p.type === "categorical" ? p.categories.length : p.max - p.min + 1;
  }
  return n;
}

function values(p: Parameter): ParamValue[] {
  if (p.type === "categorical") return p.categories.map((c) => c.label);
  return Array.from({ length: p.max - p.min + 1 }, (_, k) => p.min + k);
}

/** Every point of a finite space (the last parameter varies fastest); null when it has more than `limit`. */
export function enumeratePoints(params: readonly Parameter[], limit = ENUMERATE_LIMIT): Point[] | null {
  if (spaceSize(params) > limit) return null;
  let out: Point[] = [[]];
  for (const p of params) {
    const vs = values(p);
    out = out.flatMap((pt) => vs.map((v) => [...pt, v]));
  }
  return out;
}

/** The points of a finite, enumerable space not in `exclude`; null for other spaces. */
export function unevaluatedPoints(params: readonly Parameter[], exclude: ReadonlySet<string>): Point[] | null {
  const all = enumeratePoints(params);
  return all === null ? null : all.filter((p) => !exclude.has(pointKey(p)));
}

function sqDistance(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return s;
}

/** The search's random stream `name`, derived from the space's seed. */
export function searchRng(space: Pick<OptimizeSpace, "seed">, name: string): Rng {
  return new Rng(deriveStreamSeed(BigInt(space.seed), name));
}

/** The initial design: a Latin hypercube of min(initial, budget) points, duplicates replaced. */
export function initialDesign(space: Pick<OptimizeSpace, "seed" | "initial" | "budget" | "parameters">): Point[] {
  const n = Math.min(space.initial, space.budget);
  const lhs = latinHypercube(n, space.parameters.length, searchRng(space, "design")).map((u) =>
    decodePoint(space.parameters, u),
  );
  return distinctDesign(space.parameters, lhs, searchRng(space, "design-fill"));
}

/**
 * The initial design without duplicates. Points that round to one already in the design are
 * replaced, in order, by the candidate farthest from every point kept so far (candidates: every
 * other point of an enumerable space, else random points from `rng`); when the space has no other
 * point the duplicate is dropped, so the design is shorter. A design without duplicates is
 * returned as it is and `rng` is not used.
 */
export function distinctDesign(params: readonly Parameter[], design: readonly Point[], rng: Rng): Point[] {
  const keys = new Set<string>();
  const dup = design.map((pt) => {
    const k = pointKey(pt);
    if (keys.has(k)) return true;
    keys.add(k);
    return false;
  });
  if (!dup.includes(true)) return [...design];
  const kept = design.filter((_, i) => !dup[i]).map((pt) => encodePoint(params, pt));
  const out: Point[] = [];
  design.forEach((pt, i) => {
    if (!dup[i]) {
      out.push(pt);
      return;
    }
    const cands =
      unevaluatedPoints(params, keys) ??
      Array.from({ length: FILL_CANDIDATES }, () => randomPoint(params, rng)).filter((p) => !keys.has(pointKey(p)));
    let pick: Point | null = null;
    let pickFeat: number[] = [];
    let pickDist = -1;
    for (const c of cands) {
      const f = encodePoint(params, c);
      const d = Math.min(...kept.map((k) => sqDistance(k, f)));
      if (d > pickDist) {
        pick = c;
        pickFeat = f;
        pickDist = d;
      }
    }
    if (pick === null) return;
    keys.add(pointKey(pick));
    kept.push(pickFeat);
    out.push(pick);
  });
  return out;
}

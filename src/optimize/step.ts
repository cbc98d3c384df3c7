// The points of one Bayesian-optimization step: a GP surrogate of the evaluations so far and
// expected improvement (acquisition.ts), or random points while there is nothing to model yet.

import type { Rng } from "../engine/rng.js";
import { proposeBatch } from "./acquisition.js";
import { decodeFromRecord, encodePoint, featureGroups, pointKey, randomPoint, type Point } from "./design.js";
import type { Evaluated } from "./evaluate.js";
import { SpaceError } from "./errors.js";
import { fitSurrogate } from "./gp.js";
import { unevaluatedPoints } from "./grid.js";
import type { OptimizeSpace } from "./space.js";
import type { EvalRecord } from "./store.js";

export interface StepProposal {
  point: Point;
  source: EvalRecord["source"];
}

/**
 * The function of the objective the GP models and minimizes: the objective or its log (see
 * objective.transform), negated when maximizing. Null when the log is asked for but a value is <= 0.
 */
function gpTarget(space: OptimizeSpace, values: readonly number[]): ((v: number) => number) | null {
  const t = space.objective.transform;
  const useLog = t === "log" || (t === "auto" && values.every((v) => v > 0));
  if (useLog && values.some((v) => !(v > 0))) return null;
  const sign = space.objective.direction === "minimize" ? 1 : -1;
  return useLog ? (v) => sign * Math.log(v) : (v) => sign * v;
}

/**
 * Up to `count` new points, none already evaluated and none twice; [] when the space has no new
 * point left. A finite space small enough to enumerate offers every point not evaluated yet as a
 * candidate, so it is searched until exhausted; other spaces offer sampled candidates.
 */
export function proposeStep(
  space: OptimizeSpace,
  evaluations: readonly Evaluated[],
  count: number,
  rng: Rng,
): StepProposal[] {
  const points = evaluations.map((e) => decodeFromRecord(space, e.rec));
  const exclude = new Set(points.map(pointKey));
  const pool = unevaluatedPoints(space.parameters, exclude);
  if (pool !== null && pool.length === 0) return [];
  const observed = evaluations.filter((e) => e.objective !== null).map((e) => e.objective!);
  const target = gpTarget(space, observed);
  if (target === null) {
    throw new SpaceError(
      `objective.transform log needs ${space.objective.metric} > 0, but an evaluation gave ${observed.find((v) => !(v > 0))}; use transform: none`,
    );
  }
  const finite = observed.map(target);
  // Nothing to model yet: keep exploring at random.
  if (finite.length < 2)
    return pool !== null ? randomFromPool(pool, count, rng) : randomProposals(space, count, rng, exclude);
  const worst = Math.max(...finite);
  // Infeasible evaluations (constraint violated, failed run) count as the worst value seen.
  const y = evaluations.map((e) => (e.feasible && e.objective !== null ? target(e.objective) : worst));
  const X = points.map((p) => encodePoint(space.parameters, p));
  const sur = fitSurrogate(X, y, { kernel: "matern52", groups: featureGroups(space.parameters) });
  const feasibleZ = sur.z.filter((_, i) => evaluations[i]!.feasible);
  const bestZ = Math.min(...(feasibleZ.length > 0 ? feasibleZ : sur.z));
  return proposeBatch(space.parameters, sur, points, bestZ, count, rng, exclude, pool === null ? {} : { pool }).map(
    (p) => ({
      point: p.point,
      source: "bo" as const,
    }),
  );
}

/** `count` distinct points drawn at random from `pool` (all of it when it is smaller). */
function randomFromPool(pool: readonly Point[], count: number, rng: Rng): StepProposal[] {
  const left = [...pool];
  const proposals: StepProposal[] = [];
  while (proposals.length < count && left.length > 0) {
    const [pt] = left.splice(rng.intn(left.length), 1);
    proposals.push({ point: pt!, source: "random" });
  }
  return proposals;
}

/** Random points not in `exclude` (which they are added to); gives up after 1000 tries per point. */
function randomProposals(space: OptimizeSpace, count: number, rng: Rng, exclude: Set<string>): StepProposal[] {
  const proposals: StepProposal[] = [];
  for (let tries = 0; proposals.length < count && tries < 1000 * count; tries++) {
    const pt = randomPoint(space.parameters, rng);
    if (exclude.has(pointKey(pt))) continue;
    exclude.add(pointKey(pt));
    proposals.push({ point: pt, source: "random" });
  }
  return proposals;
}

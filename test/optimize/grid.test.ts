// Distinct points: the size of finite spaces, the initial design without duplicates, and a search
// that never proposes an evaluated point and stops when the space is exhausted.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../src/engine/rng.js";
import {
  decodePoint,
  latinHypercube,
  parseSpace,
  pointKey,
  type OptimizeSpace,
  type Point,
} from "../../src/optimize/index.js";
import { assess, type Evaluated } from "../../src/optimize/evaluate.js";
import { distinctDesign, enumeratePoints, spaceSize } from "../../src/optimize/grid.js";
import { pointRecord } from "../../src/optimize/design.js";
import { proposeStep } from "../../src/optimize/step.js";
import type { EvalRecord } from "../../src/optimize/store.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

/** A space of a categorical (2 values) and two integers (1..wMax, and 1..2 unless `continuous`): 4 × wMax points. */
function space(wMax: number, continuous = false): OptimizeSpace {
  return parseSpace(`name: grid
budget: 40
initial: 8
seeds: [1]
base:
  flags:
    model: ${MODEL}
    routing-policy: weighted
parameters:
  - name: priority
    type: categorical
    values: [constant, slo-class]
    target: {flag: priority-policy}
  - name: w_queue
    type: integer
    min: 1
    max: ${wMax}
    target: {scorer: queue-depth}
  - name: w_prefix
${continuous ? "    type: continuous\n    min: 0.1\n    max: 5" : "    type: integer\n    min: 1\n    max: 2"}
    target: {scorer: prefix-affinity}
objective: {metric: ttft_p99, direction: minimize}
`);
}

const keys = (pts: readonly Point[]): string[] => pts.map(pointKey);

test("the size of a space: the product of its value counts; a continuous parameter makes it unbounded", () => {
  const s = space(3);
  assert.equal(spaceSize(s.parameters), 12);
  const all = enumeratePoints(s.parameters)!;
  assert.equal(all.length, 12);
  assert.equal(new Set(keys(all)).size, 12);
  assert.deepEqual(all[0], ["constant", 1, 1]);
  assert.deepEqual(all[11], ["slo-class", 3, 2]);
  assert.equal(enumeratePoints(s.parameters, 11), null, "over the limit");
  assert.equal(spaceSize(space(3, true).parameters), Infinity);
  assert.equal(enumeratePoints(space(3, true).parameters), null);
});

test("the initial design has no duplicates: duplicates are replaced by new points, or dropped when there is none", () => {
  const s = space(3);
  const lhs = latinHypercube(8, 3, new Rng(7)).map((u) => decodePoint(s.parameters, u));
  assert.ok(new Set(keys(lhs)).size < lhs.length, "this Latin hypercube rounds two points to the same one");
  const d = distinctDesign(s.parameters, lhs, new Rng(1));
  assert.equal(d.length, 8);
  assert.equal(new Set(keys(d)).size, 8, keys(d).join(" "));
  // The first occurrence of every point keeps its place; the same seed gives the same design.
  const firsts = new Set<string>();
  lhs.forEach((p, i) => {
    if (firsts.has(pointKey(p))) return;
    firsts.add(pointKey(p));
    assert.deepEqual(d[i], p);
  });
  assert.deepEqual(distinctDesign(s.parameters, lhs, new Rng(1)), d);

  // 8 points in the whole space: a design of 10 keeps them and drops the rest.
  const small = space(2);
  const lhs10 = latinHypercube(10, 3, new Rng(7)).map((u) => decodePoint(small.parameters, u));
  const d10 = distinctDesign(small.parameters, lhs10, new Rng(1));
  assert.equal(d10.length, 8);
  assert.equal(new Set(keys(d10)).size, 8);

  // A design without duplicates is kept as it is, and its random stream is not touched.
  const cont = space(3, true);
  const lhsC = latinHypercube(6, 3, new Rng(3)).map((u) => decodePoint(cont.parameters, u));
  assert.equal(new Set(keys(lhsC)).size, 6);
  assert.deepEqual(distinctDesign(cont.parameters, lhsC, new Rng(1)), lhsC);
});

/** An evaluation of `pt` whose objective is a smooth function of the point (no simulation). */
function fakeEval(s: OptimizeSpace, index: number, pt: Point, source: EvalRecord["source"]): Evaluated {
  const v = 10 + (pt[0] === "slo-class" ? 3 : 0) + Math.abs(Number(pt[1]) - 2) * 2 + Math.abs(Number(pt[2]) - 1.5);
  const rec: EvalRecord = {
    v: 1,
    kind: "eval",
    index,
    source,
    params: pointRecord(s.parameters, pt),
    key: pointKey(pt),
    runs: [{ seed: 1, status: "ok", error: "", metrics: { ttft_p99: v, throughput: 1 }, wall_s: 0 }],
  };
  return assess(s, rec, null);
}

/** The search path (design, then steps of `batch` points) over fake evaluations, until nothing new is proposed. */
function searchPath(s: OptimizeSpace, batch: number): { points: string[]; steps: number } {
  const lhs = latinHypercube(s.initial, s.parameters.length, new Rng(11)).map((u) => decodePoint(s.parameters, u));
  const evals = distinctDesign(s.parameters, lhs, new Rng(12)).map((pt, i) => fakeEval(s, i, pt, "design"));
  let steps = 0;
  for (;;) {
    const props = proposeStep(s, evals, batch, new Rng(100 + steps));
    if (props.length === 0) break;
    steps++;
    assert.ok(props.length <= batch);
    for (const p of props) evals.push(fakeEval(s, evals.length, p.point, p.source));
  }
  return { points: evals.map((e) => e.rec.key), steps };
}

test("the search never proposes an evaluated point and stops when every point has been evaluated", () => {
  const s = space(3);
  const path = searchPath(s, 3);
  assert.equal(path.points.length, 12, "every point of the space, once");
  assert.equal(new Set(path.points).size, 12);
  assert.deepEqual(searchPath(s, 3), path, "the same seeds give the same path");
  // The first steps model the objective (the design has 8 observations); the last proposals come
  // from the remaining points only.
  assert.equal(path.steps, 2);
});

test("with fewer than two observations the random proposals are new points too", () => {
  const s = space(2);
  const first = fakeEval(s, 0, ["constant", 1, 1], "design");
  const props = proposeStep(s, [first], 10, new Rng(5));
  assert.equal(props.length, 7, "the 7 points left");
  assert.ok(props.every((p) => p.source === "random"));
  const all = [first.rec.key, ...props.map((p) => pointKey(p.point))];
  assert.equal(new Set(all).size, 8);
});

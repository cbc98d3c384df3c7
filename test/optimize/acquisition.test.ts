import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../src/engine/rng.js";
import {
  encodePoint,
  expectedImprovement,
  fitSurrogate,
  normCdf,
  pointKey,
  proposeBatch,
  type Parameter,
} from "../../src/optimize/index.js";
import type { Point } from "../../src/optimize/index.js";

test("normCdf matches tabulated values", () => {
  const table: [number, number][] = [
    [0, 0.5],
    [1, 0.8413447460685429],
    [-1.96, 0.024997895148220435],
    [2.5, 0.9937903346742238],
    [-4, 3.167124183311998e-5],
  ];
  for (const [z, p] of table) assert.ok(Math.abs(normCdf(z) - p) < 2e-7, `Φ(${z}) = ${normCdf(z)}, want ${p}`);
});

test("EI is 0 where the posterior variance is ~0 at a point worse than the best", () => {
  assert.equal(expectedImprovement(5, 0, 3), 0);
  assert.equal(expectedImprovement(5, 1e-30, 3), 0);
  assert.ok(expectedImprovement(3.0001, 1e-14, 3) < 1e-12);
  // ... and the plain improvement at a point known to be better.
  assert.ok(Math.abs(expectedImprovement(1, 0, 3) - 2) < 1e-12);
});

test("EI increases with the posterior variance, and is at least the plain improvement", () => {
  const best = 0.5;
  // At or above the best: strictly increasing in the variance.
  for (const mean of [0.5, 1, 2]) {
    let prev = -1;
    for (const v of [0.05, 0.1, 0.5, 1, 2, 5, 10]) {
      const ei = expectedImprovement(mean, v, best);
      assert.ok(ei > prev, `mean ${mean}: EI(${v}) = ${ei} <= ${prev}`);
      prev = ei;
    }
  }
  // Below the best: never below the plain improvement, non-decreasing (for a tiny variance EI
  // equals the improvement to the last bit), and strictly increasing once the variance matters.
  for (const mean of [-1, 0, 0.4]) {
    let prev = -1;
    for (const v of [1e-6, 1e-3, 0.01, 0.1, 0.5, 1, 2, 5, 10]) {
      const ei = expectedImprovement(mean, v, best);
      assert.ok(ei >= best - mean - 1e-12);
      assert.ok(ei >= prev, `mean ${mean}: EI(${v}) = ${ei} < ${prev}`);
      if (v >= 0.5) assert.ok(ei > prev);
      prev = ei;
    }
  }
  // ξ makes EI more demanding.
  assert.ok(expectedImprovement(0, 1, 0, 0.1) < expectedImprovement(0, 1, 0, 0));
});

test("proposeBatch: q distinct new points near the minimum (kriging believer spreads them)", () => {
  const params: Parameter[] = [
    {
      name: "x",
      type: "continuous",
      min: 0,
      max: 1,
      log: false,
      categories: [],
      target: { kind: "plugin_option", option: "p.x" },
    },
    {
      name: "c",
      type: "categorical",
      min: 0,
      max: 0,
      log: false,
      categories: ["a", "b"].map((l) => ({ label: l, value: l, flags: {} })),
      target: { kind: "plugin_option", option: "p.c" },
    },
  ];
  const f = (p: Point): number => ((p[0] as number) - 0.3) ** 2 + (p[1] === "b" ? 0.5 : 0);
  const observed: Point[] = [
    [0.05, "a"],
    [0.5, "a"],
    [0.9, "a"],
    [0.2, "b"],
    [0.7, "b"],
    [0.35, "b"],
  ];
  const X = observed.map((p) => encodePoint(params, p));
  const y = observed.map(f);
  const sur = fitSurrogate(X, y, { groups: [0, 1, 1] });
  const bestZ = Math.min(...sur.z);
  const exclude = new Set(observed.map(pointKey));
  const run = (): Point[] =>
    proposeBatch(params, sur, observed, bestZ, 3, new Rng(7), new Set(exclude), { randomCandidates: 500 }).map(
      (p) => p.point,
    );
  const batch = run();
  assert.equal(batch.length, 3);
  assert.equal(new Set(batch.map(pointKey)).size, 3, "distinct");
  for (const p of batch) assert.ok(!exclude.has(pointKey(p)), "not an evaluated point");
  assert.equal(batch[0]![1], "a", "the first pick is in the better category");
  assert.ok(Math.abs((batch[0]![0] as number) - 0.3) < 0.2, `first pick ${String(batch[0]![0])} near the minimum 0.3`);
  assert.deepEqual(run(), batch, "deterministic for a seed");
});

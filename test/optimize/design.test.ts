import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../../src/engine/rng.js";
import { decodeUnit, encodePoint, latinHypercube, perturbPoint, type Parameter } from "../../src/optimize/index.js";

const T = { kind: "plugin_option", option: "p.k" } as const;

test("Latin hypercube: each of the n strata of every dimension holds exactly one point", () => {
  for (const [n, d] of [
    [1, 3],
    [7, 4],
    [30, 10],
  ] as const) {
    const pts = latinHypercube(n, d, new Rng(123));
    assert.equal(pts.length, n);
    for (let j = 0; j < d; j++) {
      const strata = pts.map((p) => {
        assert.ok(p[j]! >= 0 && p[j]! < 1);
        return Math.floor(p[j]! * n);
      });
      assert.deepEqual(
        [...strata].sort((a, b) => a - b),
        Array.from({ length: n }, (_, k) => k),
        `dimension ${j}`,
      );
    }
  }
  assert.deepEqual(latinHypercube(9, 3, new Rng(5)), latinHypercube(9, 3, new Rng(5)), "seeded");
  assert.notDeepEqual(latinHypercube(9, 3, new Rng(5)), latinHypercube(9, 3, new Rng(6)));
});

test("a Latin hypercube over a categorical spreads its values evenly", () => {
  const p: Parameter = {
    name: "c",
    type: "categorical",
    min: 0,
    max: 0,
    log: false,
    categories: ["a", "b", "c"].map((l) => ({ label: l, value: l, flags: {} })),
    target: T,
  };
  const vals = latinHypercube(9, 1, new Rng(1)).map((u) => decodeUnit(p, u[0]!));
  for (const l of ["a", "b", "c"]) assert.equal(vals.filter((v) => v === l).length, 3);
});

test("decoding: bounds, log scale, integers, rounding to 4 significant digits", () => {
  const cont: Parameter = { name: "w", type: "continuous", min: 1e-7, max: 1e-3, log: true, categories: [], target: T };
  assert.equal(decodeUnit(cont, 0), 1e-7);
  assert.equal(decodeUnit(cont, 0.5), 0.00001); // geometric midpoint
  assert.ok(Math.abs((decodeUnit(cont, 0.999999) as number) - 1e-3) < 1e-8);
  const v = decodeUnit(cont, 0.123456) as number;
  assert.equal(v, Number(v.toPrecision(4)));
  const int: Parameter = { name: "t", type: "integer", min: 1000, max: 1000000, log: true, categories: [], target: T };
  const lin: Parameter = { name: "k", type: "integer", min: 0, max: 4, log: false, categories: [], target: T };
  const seen = new Set<number>();
  for (let i = 0; i < 1000; i++) {
    const u = i / 1000;
    const a = decodeUnit(int, u) as number;
    assert.ok(Number.isInteger(a) && a >= 1000 && a <= 1000000);
    seen.add(decodeUnit(lin, u) as number);
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4], "every integer reachable, in equal shares");
  // Features: numeric in [0,1] (log scale), categoricals one-hot.
  const cat: Parameter = {
    name: "c",
    type: "categorical",
    min: 0,
    max: 0,
    log: false,
    categories: ["x", "y"].map((l) => ({ label: l, value: l, flags: {} })),
    target: T,
  };
  const f = encodePoint([cont, cat, lin], [1e-5, "y", 3]);
  assert.equal(f.length, 4);
  assert.ok(Math.abs(f[0]! - 0.5) < 1e-12);
  assert.deepEqual(f.slice(1), [0, 1, 0.75]);
  const moved = perturbPoint([cont, cat, lin], [1e-5, "y", 3], new Rng(3), 0.3, 1);
  assert.equal(moved[1], "x", "flip probability 1 switches the category");
  assert.ok((moved[0] as number) >= 1e-7 && (moved[0] as number) <= 1e-3);
});

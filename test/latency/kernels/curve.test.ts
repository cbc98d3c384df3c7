// Curve and `between` (docs/latency.md "Interpolation and extrapolation"): exact on grid points
// (the lower monotone envelope of the measured times: each point the fastest of itself and every
// later point), log-log linear between neighbours, scaled as (x / x_last)^p beyond the last point
// and flat below the first.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { between, Curve, floorIndex, monotoneEnvelope } from "../../../src/latency/kernels/curve.js";
import { FC_SEED } from "../../helpers/fc.js";

const XS = [1, 16, 64, 256, 1024];
/** Not monotone: the 64 point is faster than the 16 point (measurement noise). */
const YS = [10, 12, 11, 30, 100];
/** The 16 point takes the 64 point's time: the smaller problem can run the larger one's kernel. */
const ENVELOPE = [10, 11, 11, 30, 100];

/** The geometric interpolation written out: y0 · (y1/y0)^(ln(x/x0) / ln(x1/x0)). */
const geometric = (x0: number, y0: number, x1: number, y1: number, x: number): number =>
  y0 * Math.pow(y1 / y0, Math.log(x / x0) / Math.log(x1 / x0));

const close = (a: number, b: number, rel = 1e-12): boolean =>
  Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));

test("curve: exactly the lower monotone envelope at every grid point", () => {
  const c = new Curve(XS, YS, 1);
  XS.forEach((x, i) => assert.equal(c.at(x), ENVELOPE[i], `x=${x}`));
  assert.deepEqual([...c.ys], ENVELOPE);
});

test("curve: between neighbours, the log-log interpolation of the envelope, inside the neighbours", () => {
  const c = new Curve(XS, YS, 1);
  for (let i = 0; i + 1 < XS.length; i++) {
    const [x0, x1, y0, y1] = [XS[i]!, XS[i + 1]!, ENVELOPE[i]!, ENVELOPE[i + 1]!];
    for (const f of [0.1, 0.37, 0.5, 0.93]) {
      const x = x0 * Math.pow(x1 / x0, f);
      const y = c.at(x);
      assert.ok(y >= y0 * (1 - 1e-12) && y <= y1 * (1 + 1e-12), `x=${x}: ${y} outside [${y0}, ${y1}]`);
      assert.ok(close(y, geometric(x0, y0, x1, y1, x)), `x=${x}: ${y} vs ${geometric(x0, y0, x1, y1, x)}`);
    }
  }
  // The midpoint in log x is the geometric mean of the neighbours (flat where the envelope is).
  assert.ok(close(c.at(32), 11));
  assert.ok(close(c.at(128), Math.sqrt(11 * 30)));
  assert.ok(close(c.at(512), Math.sqrt(30 * 100)));
});

test("monotoneEnvelope: a running minimum from the right, written out", () => {
  assert.deepEqual([...monotoneEnvelope(YS)], ENVELOPE);
  assert.deepEqual([...monotoneEnvelope([5, 1, 4, 2, 8, 3, 9])], [1, 1, 2, 2, 3, 3, 9]);
  assert.deepEqual([...monotoneEnvelope([3, 2, 1])], [1, 1, 1], "falling throughout: every point takes the last time");
  assert.deepEqual([...monotoneEnvelope([1, 2, 2, 7])], [1, 2, 2, 7], "already rising: unchanged");
  assert.deepEqual([...monotoneEnvelope([4])], [4]);
  assert.deepEqual([...monotoneEnvelope([])], []);
});

test("curve: a noisy slow point never raises the curve, and a noisy fast point lowers the points before it", () => {
  // The 16 point measured slow (20 between 10 and 12 neighbours) is cut to the next point's time...
  const slow = new Curve([1, 16, 64], [10, 20, 12], 1);
  assert.deepEqual([...slow.ys], [10, 12, 12]);
  // ...and a fast 64 point pulls the earlier ones down to it; the last point is kept as measured.
  const fast = new Curve([1, 16, 64, 256], [10, 12, 9, 30], 1);
  assert.deepEqual([...fast.ys], [9, 9, 9, 30]);
  assert.equal(fast.at(0.5), 9);
  assert.equal(fast.at(256), 30);
});

test("curve: beyond the last point, (x / x_last)^exponent; below the first, flat", () => {
  const linear = new Curve(XS, YS, 1);
  const quadratic = new Curve(XS, YS, 2);
  for (const x of [1025, 2048, 3000, 1e6]) {
    assert.ok(close(linear.at(x), 100 * (x / 1024)), `linear x=${x}`);
    assert.ok(close(quadratic.at(x), 100 * (x / 1024) ** 2), `quadratic x=${x}`);
  }
  const shifted = new Curve([8, 64], [5, 9], 1);
  for (const x of [0.5, 1, 7, 8]) assert.equal(shifted.at(x), 5, `x=${x}`);
});

test("curve: the beyond-the-grid callback fires once, on the first query past the last point only", () => {
  let calls = 0;
  const c = new Curve(XS, YS, 1, () => calls++);
  c.at(1);
  c.at(500);
  c.at(1024);
  assert.equal(calls, 0, "a query at the last point is on the grid");
  c.at(1025);
  c.at(1e5);
  assert.equal(calls, 1);
});

test("curve: rejects an empty or ragged table", () => {
  assert.throws(() => new Curve([], [], 1));
  assert.throws(() => new Curve([1, 2], [1], 1));
});

test("curve (property): non-decreasing in x, within [first y, last y] inside the grid, each grid point the fastest of itself and every later measurement", () => {
  const points = fc
    .uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 12 })
    .chain((xs) =>
      fc.tuple(
        fc.constant([...xs].sort((a, b) => a - b)),
        fc.array(fc.double({ min: 0.1, max: 1e5, noNaN: true }), { minLength: xs.length, maxLength: xs.length }),
      ),
    );
  fc.assert(
    fc.property(
      points,
      fc.double({ min: 0.5, max: 2e5, noNaN: true }),
      fc.double({ min: 0.5, max: 2e5, noNaN: true }),
      ([xs, ys], a, b) => {
        const c = new Curve(xs, ys, 1);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        assert.ok(c.at(lo) <= c.at(hi) * (1 + 1e-12), `at(${lo})=${c.at(lo)} > at(${hi})=${c.at(hi)}`);
        // exp(log y) may round an ulp below y: compare with a relative slack of 1e-12.
        if (lo <= c.last)
          assert.ok(c.at(lo) >= c.ys[0]! * (1 - 1e-12) && c.at(lo) <= c.ys[c.ys.length - 1]! * (1 + 1e-12));
        // Never above a measurement, and the last measurement is kept.
        xs.forEach((x, i) => assert.equal(c.at(x), Math.min(...ys.slice(i)), `x=${x}`));
        assert.equal(c.ys[c.ys.length - 1], ys[ys.length - 1]);
      },
    ),
    { seed: FC_SEED, numRuns: 300 },
  );
});

test("between: the end values at the measured sizes, geometric between, scaled beyond, flat below", () => {
  assert.equal(between(10, 40, 2, 8, 2, 1), 10);
  assert.equal(between(10, 40, 2, 8, 8, 1), 40);
  assert.ok(close(between(10, 40, 2, 8, 4, 1), 20), "midpoint in log space: the geometric mean");
  assert.ok(close(between(10, 40, 2, 8, 3, 1), geometric(2, 10, 8, 40, 3)));
  assert.ok(close(between(10, 40, 2, 8, 16, 1), 80));
  assert.ok(close(between(10, 40, 2, 8, 16, 2), 160));
  assert.equal(between(10, 40, 2, 8, 1, 1), 10);
});

test("floorIndex: the last grid value at or below v, 0 below the grid", () => {
  const g = [1, 2, 4, 8];
  assert.deepEqual(
    [0.5, 1, 1.5, 2, 7.9, 8, 100].map((v) => floorIndex(g, v)),
    [0, 0, 0, 1, 2, 3, 3],
  );
});

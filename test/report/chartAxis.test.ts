// Logarithmic axis ticks and whisker clamping, as the report page computes them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { clampToAxis, logAxis, paddedRange } from "../../src/report/chartSpec.js";

test("log axis ticks: 1-2-5 × 10^k with the bounds on ticks, powers of ten on wide ranges", () => {
  // The range that used to read 1000, 700, 300, 100, 70, 40.
  assert.deepEqual(logAxis(40, 1000), { min: 20, max: 1000, ticks: [20, 50, 100, 200, 500, 1000] });
  assert.deepEqual(logAxis(30, 1260).ticks, [20, 50, 100, 200, 500, 1000, 2000]);
  // Below 1: exact decimals.
  assert.deepEqual(logAxis(0.0003, 0.04).ticks, [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05]);
  assert.deepEqual(logAxis(2e-7, 2.2e-7).ticks, [2e-7, 5e-7]);
  // Too wide for 1-2-5: every power of ten, then every other one.
  assert.deepEqual(logAxis(3, 2e6).ticks, [1, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7]);
  assert.deepEqual(logAxis(3, 2e9).ticks, [1, 100, 1e4, 1e6, 1e8, 1e10]);
  // A narrow range still has a tick at each end; a single value gets a range around it.
  assert.deepEqual(logAxis(37, 41), { min: 20, max: 50, ticks: [20, 50] });
  assert.deepEqual(logAxis(50, 50), { min: 20, max: 100, ticks: [20, 50, 100] });
  // Exact powers stay bounds.
  assert.deepEqual(logAxis(100, 1000), { min: 100, max: 1000, ticks: [100, 200, 500, 1000] });
  // Fixed bounds are kept; only the ticks inside them.
  assert.deepEqual(logAxis(30, 900, 8, { min: 25, max: 900 }), { min: 25, max: 900, ticks: [50, 100, 200, 500] });
  for (const [lo, hi] of [
    [1.7, 3.3],
    [0.013, 870],
    [12, 1.2e12],
    [5e-9, 4e-3],
  ] as const) {
    const a = logAxis(lo, hi);
    assert.ok(a.ticks.length >= 2 && a.ticks.length <= 8, `${lo}..${hi}: ${a.ticks.join(" ")}`);
    assert.ok(a.min <= lo && a.max >= hi);
    for (const v of a.ticks) {
      const m = Number(v.toExponential().split("e")[0]);
      assert.ok([1, 2, 5].includes(m), `${v} is not 1, 2 or 5 × 10^k`);
    }
  }
});

test("whiskers are clamped to the axis range; on a log axis values <= 0 are below the floor", () => {
  const log = { min: 20, max: 2000, type: "logarithmic" };
  assert.deepEqual(clampToAxis([30, 60], log), { lo: 30, hi: 60, loCap: true, hiCap: true });
  assert.deepEqual(clampToAxis([5, 60], log), { lo: 20, hi: 60, loCap: false, hiCap: true });
  assert.deepEqual(clampToAxis([0, 60], log), { lo: 20, hi: 60, loCap: false, hiCap: true });
  assert.deepEqual(clampToAxis([-3, 5000], log), { lo: 20, hi: 2000, loCap: false, hiCap: false });
  assert.equal(clampToAxis([1, 10], log), null);
  assert.equal(clampToAxis([0, 0], log), null);
  assert.equal(clampToAxis([3000, 4000], log), null);
  const lin = { min: 0, max: 10, type: "linear" };
  assert.deepEqual(clampToAxis([-1, 4], lin), { lo: 0, hi: 4, loCap: false, hiCap: true });
});

test("axis bounds of a long series: no argument spread, which overflows the stack (in a browser worker far sooner)", () => {
  const v = Array.from({ length: 500_000 }, (_, i) => 1 + (i % 1000));
  assert.deepEqual(paddedRange(v, false, 0), [1, 1000]);
  assert.deepEqual(paddedRange(v, true, 0), [1, 1000]);
});

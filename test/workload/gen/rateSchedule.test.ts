// Clients with a rate schedule (docs/behavior.md "Rate schedules"): arrivals follow the scheduled
// rate, stay deterministic from the seed, and bad schedules are rejected naming the key and line.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { createRequestSource, generateAll, parseWorkloadSpec } from "../../../src/workload/index.js";
import { RateCurve } from "../../../src/workload/gen/rateSchedule.js";

const LENGTHS =
  "input_distribution: {type: constant, params: {value: 8}}, output_distribution: {type: constant, params: {value: 4}}";

/** A one-client spec whose client body (after the id) is `client`, on the last line. */
function spec(client: string, top = "horizon: 4000000000\naggregate_rate: 1"): string {
  return `version: "2"\n${top}\nclients:\n  - {id: c, arrival: {process: poisson}, ${LENGTHS}, ${client}}\n`;
}

function arrivals(text: string, seed = 7n): number[] {
  return generateAll(parseWorkloadSpec(text), { seed }).map((r) => r.arrival);
}

function countIn(xs: readonly number[], from: number, to: number): number {
  return xs.filter((t) => t >= from && t < to).length;
}

test("a step schedule switches the rate at each point", () => {
  const xs = arrivals(spec("rate_schedule: [{at_s: 0, rate: 10}, {at_s: 100, rate: 40}, {at_s: 200, rate: 0}]"));
  const low = countIn(xs, 0, 100e6);
  const high = countIn(xs, 100e6, 200e6);
  // Poisson counts: 1000 ± 3·32 and 4000 ± 3·63.
  assert.ok(Math.abs(low - 1000) < 100, `low ${low}`);
  assert.ok(Math.abs(high - 4000) < 200, `high ${high}`);
  assert.equal(countIn(xs, 200e6, Infinity), 0, "rate 0 after the last point");
});

test("a linear schedule ramps between points", () => {
  const xs = arrivals(
    spec(
      "rate_interpolation: linear, rate_schedule: [{at_s: 0, rate: 0}, {at_s: 200, rate: 40}, {at_s: 400, rate: 0}]",
    ),
  );
  // ∫ over [0, 100 s) = 1000, over [100, 200) = 3000; symmetric on the way down; nothing after.
  assert.ok(Math.abs(countIn(xs, 0, 100e6) - 1000) < 100);
  assert.ok(Math.abs(countIn(xs, 100e6, 200e6) - 3000) < 170);
  assert.ok(Math.abs(countIn(xs, 300e6, 400e6) - 1000) < 100);
  assert.equal(countIn(xs, 400e6, Infinity), 0);
});

test("the same seed gives the same arrivals, another seed others", () => {
  const text = spec("rate_schedule: [{at_s: 0, rate: 5}, {at_s: 50, rate: 20}, {at_s: 80, rate: 0}]");
  assert.deepEqual(arrivals(text, 3n), arrivals(text, 3n));
  assert.notDeepEqual(arrivals(text, 3n), arrivals(text, 4n));
});

test("a schedule ending at rate 0 bounds generation without a horizon or cap", () => {
  const xs = arrivals(spec("rate_schedule: [{at_s: 0, rate: 20}, {at_s: 10, rate: 0}]", "seed: 1"));
  assert.ok(xs.length > 100 && xs.every((t) => t < 10e6));
});

test("constant arrivals under a step schedule are evenly spaced per segment", () => {
  const text = spec(
    "arrival: {process: constant}, rate_schedule: [{at_s: 0, rate: 1}, {at_s: 5, rate: 2}, {at_s: 7, rate: 0}]",
  ).replace("arrival: {process: poisson}, ", "");
  assert.deepEqual(arrivals(text), [1e6, 2e6, 3e6, 4e6, 5e6, 5.5e6, 6e6, 6.5e6, 7e6]);
});

test("the curve's inverse undoes its cumulative rate", () => {
  const point = fc.record({
    gap: fc.double({ min: 0.5, max: 100, noNaN: true }),
    rate: fc.oneof(fc.constant(0), fc.double({ min: 0.01, max: 50, noNaN: true })),
  });
  fc.assert(
    fc.property(
      fc.array(point, { minLength: 1, maxLength: 6 }),
      fc.boolean(),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (ps, linear, f) => {
        let at = 0;
        const points = ps.map((p, k) => ({ at_s: k === 0 ? 0 : (at += p.gap), rate: p.rate }));
        points.push({ at_s: at + 10, rate: 1 });
        const curve = new RateCurve(points, linear);
        const end = (at + 10) * 1e6;
        const L = curve.cumulative(end) * f;
        const t = curve.inverse(L);
        assert.ok(t <= end + 1e-6);
        assert.ok(Math.abs(curve.cumulative(t) - L) <= 1e-9 * Math.max(1, L));
      },
    ),
  );
});

function generationError(text: string): string {
  try {
    createRequestSource(parseWorkloadSpec(text));
  } catch (err) {
    return (err as Error).message;
  }
  return "(no error)";
}

const P = "invalid workload spec: client[0]";
const cases: [string, string, string, string][] = [
  ["empty", "rate_schedule: []", `${P}.rate_schedule: at least one point required`, "rate_schedule"],
  [
    "first point",
    "rate_schedule: [{at_s: 5, rate: 1}]",
    `${P}.rate_schedule[0].at_s must be 0 (the schedule starts at time 0), got 5`,
    "at_s: 5",
  ],
  [
    "order",
    "rate_schedule: [{at_s: 0, rate: 1}, {at_s: 60, rate: 2}, {at_s: 30, rate: 1}]",
    `${P}.rate_schedule[2].at_s must be > the previous point's 60, got 30`,
    "at_s: 30",
  ],
  [
    "negative rate",
    "rate_schedule: [{at_s: 0, rate: 1}, {at_s: 9, rate: -2}]",
    `${P}.rate_schedule[1].rate must be a finite number >= 0, got -2`,
    "rate: -2",
  ],
  [
    "all zero",
    "rate_schedule: [{at_s: 0, rate: 0}]",
    `${P}.rate_schedule: at least one rate must be > 0`,
    "rate_schedule",
  ],
  [
    "mode",
    "rate_interpolation: cubic, rate_schedule: [{at_s: 0, rate: 1}]",
    `${P}: unknown rate_interpolation "cubic"; valid: step, linear, or empty (step)`,
    "rate_interpolation",
  ],
  [
    "mode alone",
    "rate_fraction: 1, rate_interpolation: linear",
    `${P}: rate_interpolation has no effect without rate_schedule`,
    "rate_interpolation",
  ],
  [
    "with rate_fraction",
    "rate_fraction: 0.5, rate_schedule: [{at_s: 0, rate: 1}]",
    `${P}: rate_schedule and rate_fraction are mutually exclusive (the schedule gives requests per second), got rate_fraction 0.5`,
    "rate_fraction",
  ],
  [
    "with concurrency",
    "concurrency: 3, rate_schedule: [{at_s: 0, rate: 1}]",
    `${P}: rate_schedule and concurrency are mutually exclusive`,
    "rate_schedule",
  ],
];

for (const [name, client, message, needle] of cases) {
  test(`rate schedule check: ${name}`, () => {
    const text = spec(client);
    const lines = text.trimEnd().split("\n");
    const line = lines[lines.length - 1]!;
    assert.equal(generationError(text), `${message} (line ${lines.length}, column ${line.indexOf(needle) + 1})`);
  });
}

test("a client without a schedule still needs a positive rate_fraction", () => {
  assert.match(
    generationError(spec("rate_fraction: 0", "horizon: 5\naggregate_rate: 1")),
    /rate_fraction must be positive/,
  );
});

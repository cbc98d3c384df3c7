// The pooled ITL's sliding window (src/instance/pooledItl.ts): steps no request in flight can
// refer to are folded into a value → count map; the pooled result is the one a store keeping
// every step gives, and the window follows the requests in flight, not the run's length.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { PooledItl, closeDecodeRun } from "../../src/instance/pooledItl.js";
import type { Request } from "../../src/core/request.js";

interface Plan {
  start: number;
  length: number;
  /** A step left out inside the decode (0: none), splitting it into two runs. */
  gap: number;
  duplicate: boolean;
}

const planArb = fc.array(
  fc.record({
    start: fc.integer({ min: 1, max: 3000 }),
    length: fc.integer({ min: 1, max: 150 }),
    gap: fc.integer({ min: 0, max: 20 }),
    duplicate: fc.boolean(),
  }),
  { minLength: 1, maxLength: 60 },
);

const fakeRequest = (): Request => ({ decodeRunStart: -1, decodeRuns: null, scheduledStep: 0 }) as unknown as Request;

/** Replays the plans over one store; `fold` lets it fold what the requests in flight no longer refer to. */
function replay(
  plans: readonly Plan[],
  values: readonly number[] | ((step: number) => number),
  fold: boolean,
): { pooled: [number, number][]; window: number } {
  const valueOf = typeof values === "function" ? values : (s: number): number => values[s % values.length]!;
  const itl = new PooledItl();
  const reqs = plans.map(fakeRequest);
  const last = Math.max(...plans.map((p) => p.start + p.length + p.gap));
  if (fold) {
    itl.oldest = () => {
      let o = Infinity;
      reqs.forEach((r, i) => {
        if (r.decodeRunStart >= 0 || r.decodeRuns !== null) o = Math.min(o, plans[i]!.start);
      });
      return o;
    };
  }
  let window = 0;
  for (let s = 1; s <= last; s++) {
    itl.record(s, valueOf(s));
    window = Math.max(window, itl.windowLength);
    plans.forEach((p, i) => {
      const r = reqs[i]!;
      const end = p.start + p.length + p.gap - 1;
      if (s === p.start) r.decodeRunStart = s;
      if (p.gap > 0 && s === p.start + Math.floor(p.length / 2)) closeDecodeRun(r, s);
      if (p.gap > 0 && s === p.start + Math.floor(p.length / 2) + p.gap) r.decodeRunStart = s;
      if (s === end) {
        itl.addCompleted(r, s, p.duplicate);
        r.decodeRunStart = -1;
        r.decodeRuns = null;
      }
    });
  }
  const pooled = new Map<number, number>();
  itl.collect(pooled, last);
  return { pooled: [...pooled], window };
}

test("pooled ITL window (property): folding gives the pooled entries, in the same order, of keeping every step", () => {
  fc.assert(
    fc.property(
      planArb,
      fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 12 }),
      (plans, values) => {
        assert.deepEqual(replay(plans, values, true).pooled, replay(plans, values, false).pooled);
      },
    ),
    { seed: FC_SEED, numRuns: 200 },
  );
});

test("pooled ITL (property): runs of equal step values pool as the steps one by one do, in first-occurrence order", () => {
  fc.assert(
    fc.property(
      planArb,
      fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 40 }),
      fc.boolean(),
      (plans, values, runLength, fold) => {
        const valueOf = (s: number): number => values[Math.floor(s / runLength) % values.length]!;
        // Each step's own value (no two steps alike) gives each step's entry count, in step order.
        const perStep = replay(plans, (s) => s, fold).pooled;
        const expected = new Map<number, number>();
        for (const [s, count] of perStep) expected.set(valueOf(s), (expected.get(valueOf(s)) ?? 0) + count);
        assert.deepEqual(replay(plans, valueOf, fold).pooled, [...expected]);
      },
    ),
    { seed: FC_SEED, numRuns: 200 },
  );
});

test("pooled ITL window: over 200,000 steps of short requests it stays small; kept whole it grows with the run", () => {
  const plans: Plan[] = Array.from({ length: 2000 }, (_, i) => ({
    start: 1 + i * 100,
    length: 120,
    gap: i % 3,
    duplicate: i % 2 === 0,
  }));
  const folded = replay(plans, [7, 9, 11], true);
  const whole = replay(plans, [7, 9, 11], false);
  assert.deepEqual(folded.pooled, whole.pooled);
  assert.ok(folded.window <= 1024, `window ${folded.window} steps`);
  assert.ok(whole.window >= 200_000, `window ${whole.window} steps`);
});

test("pooled ITL window: reading a folded step is a bookkeeping error, not a wrong value", () => {
  const itl = new PooledItl();
  itl.oldest = () => 100;
  for (let s = 1; s <= 200; s++) itl.record(s, s);
  assert.throws(() => itl.valueAt(3), /step 3 was folded/);
  assert.equal(itl.valueAt(150), 150);
});

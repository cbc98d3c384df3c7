// Cohort members due at a step that only needs their token's KV placed (a fresh block, or one
// more token in the last) are taken through it inside the steady run (DecodeCohort.passDue,
// docs/architecture.md "Steady steps"). The results must not tell it from leaving them to the full
// step, preemptions and shared documents included.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { DecodeCohort } from "../../src/instance/decodeCohort.js";
import type { ClusterRun } from "../../src/sim/runCluster.js";
import {
  assertSameRuns,
  runTrace as runOnce,
  traceConfigArb as configArb,
  traceWorkloadArb,
  withMethodFalse,
  type TraceConfig as Cfg,
  type TraceWorkload as Wl,
} from "./helpers.js";

const workloadArb = traceWorkloadArb(20000, 400);

/** Runs f with every due member left to the full step (passDue always declining), as before it existed. */
const leavingDueToFullSteps = <T>(f: () => T): T => withMethodFalse(DecodeCohort.prototype, "passDue", f);

/** Steps run as events, over all instances. */
const eventSteps = (r: ClusterRun): number => r.instances.reduce((n, i) => n + i.stepCount - i.steadySteps, 0);

test("due members taken through steady steps (property): the same metrics, ITLs, preemptions and KV state", () => {
  let saved = 0;
  let preempted = 0;
  fc.assert(
    fc.property(configArb, workloadArb, (c, w) => {
      const inPlace = runOnce(c, w);
      const full = leavingDueToFullSteps(() => runOnce(c, w));
      assertSameRuns(inPlace, full);
      saved += eventSteps(full) - eventSteps(inPlace);
      for (const inst of inPlace.instances) preempted += inst.preemptionCount;
    }),
    { seed: FC_SEED, numRuns: 80 },
  );
  assert.ok(saved > 1000, `only ${saved} full steps saved: the property exercises little`);
  assert.ok(preempted > 10, `only ${preempted} preemptions: the property exercises little`);
});

test("a lone decode takes its new KV blocks inside the steady run", () => {
  // 480 tokens of private output at 16-token blocks: a block every 16 steps, each taken in place.
  const c: Cfg = { instances: 1, blockSize: 16, totalKvBlocks: 400, maxRunning: 4 };
  const w: Wl = [{ gap: 0, doc: -1, own: 1, cut: 40, output: 480 }];
  const inPlace = runOnce(c, w);
  const full = leavingDueToFullSteps(() => runOnce(c, w));
  assertSameRuns(inPlace, full);
  assert.ok(eventSteps(inPlace) <= 3, `${eventSteps(inPlace)} steps as events`);
  assert.ok(eventSteps(full) >= 30, `${eventSteps(full)} steps as events without passDue`);
});

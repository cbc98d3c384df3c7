// Progress lines of blis optimize: k/budget, a best that never gets worse and ignores the
// baseline, and an ETA from the wall time per simulated evaluation.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSpace, type OptimizeSpace } from "../../src/optimize/index.js";
import { assess } from "../../src/optimize/evaluate.js";
import { fmtDuration, Progress } from "../../src/optimize/progress.js";
import type { EvalRecord } from "../../src/optimize/store.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

function space(constraint: string): OptimizeSpace {
  return parseSpace(`name: p
budget: 6
initial: 3
seeds: [1]
base:
  flags:
    model: ${MODEL}
baseline:
  flags:
    scheduler: fcfs
parameters:
  - name: w
    type: integer
    min: 1
    max: 9
    target: {flag: num-instances}
objective: {metric: ttft_p99, direction: minimize}
constraints:
  - {metric: throughput, min: ${constraint}}
`);
}

function rec(index: number, ttft: number, throughput: number): EvalRecord {
  return {
    v: 1,
    kind: index < 0 ? "baseline" : "eval",
    index,
    source: index < 0 ? "baseline" : index < 3 ? "design" : "bo",
    params: index < 0 ? {} : { w: index + 1 },
    key: index < 0 ? "baseline" : `[${index + 1}]`,
    runs: [{ seed: 1, status: "ok", error: "", metrics: { ttft_p99: ttft, throughput }, wall_s: 0 }],
  };
}

test("durations: seconds, minutes and seconds, hours and minutes", () => {
  assert.equal(fmtDuration(0), "0s");
  assert.equal(fmtDuration(44.6), "45s");
  assert.equal(fmtDuration(185), "3m05s");
  assert.equal(fmtDuration(3720), "1h02m");
});

test("progress: k/budget, a best that only improves and never counts the baseline, an ETA", () => {
  const s = space("0.9 * baseline");
  const lines: string[] = [];
  let clock = 0;
  const p = new Progress(
    s,
    (l) => lines.push(l),
    true,
    () => clock,
  );
  const finish = (r: EvalRecord, at: number): void => {
    clock = at;
    p.simulated();
    p.add(r);
    if (r.kind === "eval") p.evaluation(r);
  };
  // The design finishes in any order, before the baseline: feasibility is not known yet.
  finish(rec(2, 30, 100), 1000);
  finish(rec(0, 50, 100), 2000);
  finish(rec(1, 20, 10), 3000); // infeasible once the baseline is known (throughput too low)
  clock = 4000;
  p.simulated();
  p.baseline(
    (() => {
      const first = assess(s, rec(-1, 5, 100), null);
      return assess(s, first.rec, first.means);
    })(),
  );
  // A step: its points finish out of order, the later index first and better.
  finish(rec(4, 25, 100), 5000);
  finish(rec(3, 40, 100), 6000);
  finish(rec(5, 25, 100), 8000);
  assert.deepEqual(lines, [
    "optimize: 1/6 #3 [design] ttft_p99 = 30  best after the baseline  ETA 6s",
    "optimize: 2/6 #1 [design] ttft_p99 = 50  best after the baseline  ETA 5s",
    "optimize: 3/6 #2 [design] ttft_p99 = 20  best after the baseline  ETA 4s",
    // The baseline (5) is better than every evaluation, but the best is among the evaluations.
    "optimize: 3/6 baseline ttft_p99 = 5  best 30 (#3)  ETA 3s",
    "optimize: 4/6 #5 [bo] ttft_p99 = 25  best 25 (#5)  ETA 2s",
    "optimize: 5/6 #4 [bo] ttft_p99 = 40  best 25 (#5)  ETA 1s",
    // A tie: the earlier evaluation stays the best, as in the final table.
    "optimize: 6/6 #6 [bo] ttft_p99 = 25  best 25 (#5)  ETA 0s",
  ]);
});

test("progress without baseline-relative constraints: feasibility and the best from the first line", () => {
  const s = space("50");
  const lines: string[] = [];
  const p = new Progress(
    s,
    (l) => lines.push(l),
    true,
    () => 0,
  );
  p.add(rec(0, 50, 100));
  p.evaluation(rec(0, 50, 100));
  p.add(rec(1, 20, 10));
  p.evaluation(rec(1, 20, 10));
  assert.deepEqual(lines, [
    "optimize: 1/6 #1 [design] ttft_p99 = 50  best 50 (#1)  ETA -",
    "optimize: 2/6 #2 [design] ttft_p99 = 20  best 50 (#1)  ETA -  infeasible: throughput 10 violates >= 50",
  ]);
  // Off: nothing printed, the best is still tracked.
  const quiet: string[] = [];
  const q = new Progress(s, (l) => quiet.push(l), false);
  q.add(rec(0, 50, 100));
  q.evaluation(rec(0, 50, 100));
  assert.deepEqual(quiet, []);
  assert.equal(q.best()?.objective, 50);
});

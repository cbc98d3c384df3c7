// Progress of `blis run` (docs/behavior.md "Progress"): plain lines only when asked for off a
// terminal, nothing by default, and never a change in what is printed on stdout.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli } from "../helpers/cli.js";
import { simulate } from "../../src/sim/simulate.js";
import type { ProgressSnapshot } from "../../src/sim/progress.js";
import { fractionDone, progressLine } from "../../src/cli/runProgress.js";

const ARGS = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--rate", "50", "--num-requests", "300"];
const isProgress = (l: string): boolean => l.startsWith("run: ");

test("no progress off a terminal by default or with --no-progress; --progress prints lines ending at 100%", async () => {
  const quiet = await cli(ARGS);
  const off = await cli([...ARGS, "--no-progress"]);
  const on = await cli([...ARGS, "--progress"]);
  for (const r of [quiet, off, on]) assert.equal(r.code, 0);
  assert.deepEqual(quiet.stderr.filter(isProgress), []);
  assert.deepEqual(off.stderr.filter(isProgress), []);
  const lines = on.stderr.filter(isProgress);
  assert.ok(lines.length >= 1);
  assert.match(lines.at(-1)!, /^run: 100% \| simulated \d+\.\d s \| 300\/300 requests done \| \d+ req\/s \| ETA 0s$/);
  assert.equal(on.stdout, quiet.stdout);
  assert.equal(off.stdout, quiet.stdout);
});

test("the library hook sees time and completions grow, ends with the run's totals, and changes nothing", async () => {
  const input = { model: "meta-llama/llama-3.1-8b-instruct", rate: 40, numRequests: 200, seed: 7 };
  const snaps: ProgressSnapshot[] = [];
  const plain = await simulate(input);
  const hooked = await simulate(input, {
    hooks: { progress: { intervalUs: 250_000, onProgress: (s) => snaps.push(s) } },
  });
  assert.deepEqual(hooked.metrics.cluster, plain.metrics.cluster);
  assert.ok(snaps.length > 3, `${snaps.length} snapshots`);
  for (let i = 1; i < snaps.length; i++) {
    assert.ok(snaps[i]!.clockUs >= snaps[i - 1]!.clockUs, "clock never goes back");
    assert.ok(snaps[i]!.completed >= snaps[i - 1]!.completed, "completions never go back");
    assert.ok(snaps[i]!.routed >= snaps[i]!.completed + snaps[i]!.droppedUnservable);
  }
  // Snapshots before the last are taken on the grid: at or after a multiple of the interval.
  assert.ok(snaps.slice(0, -1).every((s) => s.clockUs >= 250_000 && !s.final));
  const last = snaps.at(-1)!;
  assert.equal(last.final, true);
  assert.equal(last.requestCap, 200);
  assert.equal(last.completed, plain.metrics.cluster.completed_requests);
  assert.equal(last.inFlight, 0);
  assert.equal(fractionDone(last), 1);
});

test("the share done follows the request count when known, else simulated time of a finite horizon", () => {
  const base: ProgressSnapshot = {
    clockUs: 5e6,
    horizonUs: 20e6,
    requestCap: 0,
    routed: 30,
    completed: 25,
    droppedUnservable: 5,
    inFlight: 0,
    preemptions: 0,
    final: false,
  };
  assert.equal(fractionDone(base), 0.25);
  assert.equal(fractionDone({ ...base, requestCap: 120 }), 0.25);
  assert.equal(fractionDone({ ...base, horizonUs: Infinity }), 0);
  assert.equal(
    progressLine({ ...base, requestCap: 120 }, 3000),
    "run: 25% | simulated 5.0 s | 30/120 requests done | 10 req/s | ETA 9s",
  );
});

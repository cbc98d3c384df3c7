import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { SweepReport } from "../../src/experiment/index.js";
import { blis, MODEL, records, tmpDir, writePlan } from "./helpers.js";

test("a failing run is recorded with its error; the other runs complete", () => {
  const dir = tmpDir("fail");
  const plan = writePlan(
    dir,
    "plan.yaml",
    `name: failing
seeds: [1, 2]
base:
  flags:
    model: ${MODEL}
    num-requests: 50
axes:
  - name: kv
    flag: total-kv-blocks
    values: [-1, 50000]
`,
  );
  const out = path.join(dir, "out");
  const r = blis(["sweep", plan, "--out", out, "--jobs", "2"]);
  assert.equal(r.code, 1, "failed runs are recorded, and the sweep fails");
  assert.equal(
    r.stderr.trimEnd().split("\n").at(-1),
    "error: sweep: 2 of 4 runs failed (see the failed-runs table; allow_failures: true accepts them)",
  );
  assert.match(r.stdout, /^Result: 2 of 4 runs FAILED \(exit status 1\)$/m);
  const recs = records(out);
  assert.equal(recs.length, 4);
  const failed = recs.filter((x) => x["config"] === "kv=-1");
  assert.equal(failed.length, 2);
  for (const f of failed) {
    assert.equal(f["status"], "error:1");
    assert.equal(f["error"], "error: --total-kv-blocks must be > 0, got -1");
  }
  assert.ok(recs.filter((x) => x["config"] === "kv=50000").every((x) => x["status"] === "ok"));
  assert.match(r.stderr, /warning: run kv=-1 seed 1: error:1: error: --total-kv-blocks must be > 0, got -1/);
  // The error line first, then the run's log lines (warn level by default).
  assert.match(
    fs.readFileSync(path.join(out, "kv=-1", "1.stderr.txt"), "utf8"),
    /^error: --total-kv-blocks must be > 0, got -1\n(level=warn .*\n)*$/,
  );
  const report = JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")) as SweepReport;
  const s = report.summary.filter((x) => x.metric === "completed");
  assert.deepEqual(
    s.map((x) => [x.config, x.mean, x.n_valid, x.n]),
    [
      ["kv=-1", null, 0, 2],
      ["kv=50000", 50, 2, 2],
    ],
  );
  assert.equal(report.runs.failed, 2);
  assert.equal(report.failures.length, 2);
  assert.equal(report.conservation?.result, "PASS");
  assert.match(r.stdout, /--- Failed runs \(excluded from every aggregate\) ---/);
  assert.match(r.stdout, /kv=-1\s+1\s+1\s+error:1\s+error: --total-kv-blocks must be > 0, got -1/);
});

test("a run past timeout_s is terminated and recorded as timeout", () => {
  const dir = tmpDir("timeout");
  const plan = writePlan(
    dir,
    "plan.yaml",
    `name: slow
seeds: [1]
timeout_s: 4
allow_failures: true
base:
  flags:
    model: ${MODEL}
    rate: 1000
axes:
  - name: n
    flag: num-requests
    values: [40, 2000000]
`,
  );
  const out = path.join(dir, "out");
  const t0 = Date.now();
  const r = blis(["sweep", plan, "--out", out, "--jobs", "2"]);
  const wall = (Date.now() - t0) / 1000;
  assert.equal(r.code, 0, `allow_failures accepts the timeout: ${r.stderr}`);
  assert.match(
    r.stdout,
    /^Result: every requested check passed; 1 failed run allowed by allow_failures \(exit status 0\)$/m,
  );
  assert.ok(wall < 30, `the sweep took ${wall}s: the slow run was not cut off`);
  const recs = records(out);
  const slow = recs.find((x) => x["config"] === "n=2000000")!;
  assert.equal(slow["status"], "timeout");
  assert.equal(slow["error"], "timeout after 4s (worker terminated)");
  assert.equal(recs.find((x) => x["config"] === "n=40")!["status"], "ok");
  const report = JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")) as SweepReport;
  assert.deepEqual(
    report.per_seed.map((p) => p.status),
    ["ok", "timeout"],
  );
  assert.match(r.stderr, /warning: run n=2000000 seed 1: timeout: timeout after 4s/);
});

// A sweep whose runs fail exits 1 with a line counting them, unless the plan sets allow_failures.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-sweepfail-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

function plan(name: string, extra: string): string {
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(
    file,
    `name: ${name}
seeds: [1]
${extra}base:
  flags:
    model: test-model
    alpha-coeffs: "100,1,100"
    beta-coeffs: "1000,2,1"
    num-requests: 10
axes:
  - name: n
    flag: num-instances
    values: [1, 0, -2]
`,
  );
  return file;
}

test("failed runs make the sweep fail with a summary line", async () => {
  const res = await cli(["sweep", plan("failing", ""), "--jobs", "2", "--no-progress"]);
  assert.equal(res.code, 1);
  assert.equal(
    res.stderr.at(-1),
    "error: sweep: 2 of 3 runs failed (see the failed-runs table; allow_failures: true accepts them)",
  );
  assert.match(res.stdout, /^Result: 2 of 3 runs FAILED \(exit status 1\)$/m);
  assert.doesNotMatch(res.stdout, /every requested check passed/);
});

test("allow_failures: true accepts failed runs", async () => {
  const out = path.join(dir, "out");
  const res = await cli([
    "sweep",
    plan("allowed", "allow_failures: true\n"),
    "--out",
    out,
    "--jobs",
    "2",
    "--no-progress",
  ]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  assert.match(
    res.stdout,
    /^Result: every requested check passed; 2 failed runs allowed by allow_failures \(exit status 0\)$/m,
  );
  const summary = JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")) as Record<string, unknown>;
  assert.equal(summary["allow_failures"], true);
  assert.deepEqual(summary["runs"], { expected: 3, finished: 3, ok: 1, failed: 2, missing: 0 });
});

test("allow_failures must be a boolean", async () => {
  const res = await cli(["sweep", plan("bad", "allow_failures: sometimes\n"), "--no-progress"]);
  assert.equal(res.code, 2);
  assert.equal(res.stderr.length, 1);
  assert.match(res.stderr[0]!, /^error: .*allow_failures/);
});

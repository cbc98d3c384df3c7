// Every output path is checked before any work starts: one error line, exit status 1, nothing
// simulated or written, and no hang where a recursive mkdir would loop (procfs).

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, type CliRun } from "../helpers/cli.js";
import { writeOutput } from "../../src/cli/outputPaths.js";
import { writeFileAtomic } from "../../src/util/atomicWrite.js";
import { UserError } from "../../src/util/errors.js";

const FIXTURES = path.resolve(import.meta.dirname, "..", "..", "..", "test", "fixtures");
const RUN = ["run", "--model", "test-model", "--alpha-coeffs", "100,1,100", "--beta-coeffs", "1000,2,1"];
const RUN_ARGS = [...RUN, "--total-kv-blocks", "20000", "--num-requests", "5", "--rate", "20"];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-out-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
const regular = path.join(dir, "regular.txt");
fs.writeFileSync(regular, "x");

/** Runs the CLI with a time limit; asserts the single error line, exit status 1 and an empty stdout. */
async function fails(args: string[], expected: string): Promise<CliRun> {
  const t0 = performance.now();
  const res = await cli(args);
  const ms = performance.now() - t0;
  const label = args.join(" ");
  assert.equal(res.code, 1, `${label}: exit status (${res.stderr.join(" | ")})`);
  assert.equal(res.stdout, "", `${label}: nothing simulated`);
  assert.deepEqual(
    res.stderr.filter((l) => !l.startsWith("level=")),
    [expected],
    label,
  );
  assert.ok(ms < 5000, `${label}: took ${ms} ms`);
  return res;
}

/** Nothing but the files the test made itself is left in the temporary directory. */
function assertUntouched(): void {
  assert.deepEqual(fs.readdirSync(dir), ["regular.txt"]);
}

test("blis run --results-path: directory, under a file, procfs (a missing directory is created: outputDirs.test.ts)", async () => {
  await fails([...RUN_ARGS, "--results-path", dir], `error: --results-path ${dir}: is a directory`);
  const under = path.join(regular, "r.json");
  await fails([...RUN_ARGS, "--results-path", under], `error: --results-path ${under}: ${regular} is not a directory`);
  const deeper = path.join(regular, "a", "r.json");
  await fails(
    [...RUN_ARGS, "--results-path", deeper],
    `error: --results-path ${deeper}: ${regular} is not a directory`,
  );
  await fails(
    [...RUN_ARGS, "--results-path", "/proc/r.json"],
    "error: --results-path /proc/r.json: cannot create files in /proc: no such file or directory",
  );
  await fails(
    [...RUN_ARGS, "--results-path", "/dev/null"],
    "error: --results-path /dev/null: not a regular file (character device)",
  );
  // A trailing slash names a directory, existing or not: refused before the metrics are printed.
  const slash = path.join(dir, "new") + "/";
  await fails([...RUN_ARGS, "--results-path", slash], `error: --results-path ${slash}: names a directory, not a file`);
  await fails([...RUN_ARGS, "--report", slash], `error: --report ${slash}: names a directory, not a file`);
  assertUntouched();
});

test("blis run --report under procfs or a regular file fails at once", async () => {
  await fails(
    [...RUN_ARGS, "--report", "/proc/x/r.html"],
    "error: --report /proc/x/r.html: cannot create directories in /proc: no such file or directory",
  );
  const under = path.join(regular, "sub", "r.html");
  await fails([...RUN_ARGS, "--report", under], `error: --report ${under}: ${regular} is not a directory`);
  const asDir = path.join(dir, "r.html");
  fs.mkdirSync(asDir);
  try {
    await fails([...RUN_ARGS, "--report", asDir], `error: --report ${asDir}: is a directory`);
  } finally {
    fs.rmdirSync(asDir);
  }
  assertUntouched();
});

test("a report into a missing directory still creates it", async () => {
  const report = path.join(dir, "new", "deeper", "r.html");
  const res = await cli([...RUN_ARGS, "--report", report]);
  try {
    assert.equal(res.code, 0, res.stderr.join("\n"));
    assert.ok(fs.existsSync(report) && fs.existsSync(path.join(dir, "new", "deeper", "r.json")));
    assert.deepEqual(fs.readdirSync(path.join(dir, "new", "deeper")).sort(), ["r.html", "r.json"]);
  } finally {
    fs.rmSync(path.join(dir, "new"), { recursive: true });
  }
});

test("blis sweep, optimize, fit and report: --out is checked first", async () => {
  const plan = path.join(FIXTURES, "..", "..", "examples", "experiments", "horizontal-scaling.yaml");
  await fails(
    ["sweep", plan, "--out", "/proc/x"],
    "error: --out /proc/x: cannot create directories in /proc: no such file or directory",
  );
  await fails(["sweep", plan, "--out", regular], `error: --out ${regular}: not a directory`);
  const space = path.join(FIXTURES, "..", "..", "examples", "optimize", "strategy.yaml");
  await fails(
    ["optimize", space, "--out", "/proc/x"],
    "error: --out /proc/x: cannot create directories in /proc: no such file or directory",
  );
  const under = path.join(regular, "o");
  await fails(["optimize", space, "--out", under], `error: --out ${under}: ${regular} is not a directory`);
  await fails(
    [...["fit", "--model", "test-model", "--data", "x"], "--out", "/proc/c.yaml"],
    "error: --out /proc/c.yaml: cannot create files in /proc: no such file or directory",
  );
  const results = path.join(dir, "results.json");
  fs.writeFileSync(results, "{}");
  try {
    await fails(
      ["report", results, "--out", "/proc/x/r.html"],
      "error: --out /proc/x/r.html: cannot create directories in /proc: no such file or directory",
    );
  } finally {
    fs.rmSync(results);
  }
  assertUntouched();
});

test("blis replay --trace-output and blis observe --trace-header are checked before anything runs", async () => {
  const header = path.join(FIXTURES, "workload", "trace-header.yaml");
  const data = path.join(FIXTURES, "workload", "trace-data.csv");
  await fails(
    ["replay", "--trace-header", header, "--trace-data", data, "--model", "test-model", "--trace-output", "/proc/t"],
    "error: --trace-output /proc/t.yaml: cannot create files in /proc: no such file or directory",
  );
  const observe = ["observe", "--server", "http://127.0.0.1:9", "--model", "m", "--rate", "1", "--num-requests", "1"];
  await fails(
    [...observe, "--trace-header", "/proc/h.yaml", "--trace-data", path.join(dir, "d.csv")],
    "error: --trace-header: cannot create files in /proc: no such file or directory",
  );
  assertUntouched();
});

test("a write that fails anyway names the flag, the path and the reason", () => {
  const file = path.join(regular, "r.json");
  assert.throws(
    () => writeOutput("--results-path", file, "{}", writeFileAtomic),
    (e: unknown) => e instanceof UserError && e.message === `--results-path: cannot write ${file}: not a directory`,
  );
  assert.throws(
    () => writeOutput("--results-path", dir, "{}", writeFileAtomic),
    (e: unknown) => e instanceof UserError && e.message === `--results-path: cannot write ${dir}: is a directory`,
  );
  assertUntouched();
});

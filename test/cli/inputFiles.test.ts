// Input files are read only when they are regular files under their size limit: devices, FIFOs
// and directories fail at once with the flag and the path, instead of blocking or filling memory.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";
import { DATA_FILE_LIMIT, InputFileError, readInputFile, SPEC_FILE_LIMIT } from "../../src/util/inputFile.js";
import { loadWorkloadSpec } from "../../src/workload/index.js";
import { UserError } from "../../src/util/errors.js";
import { QUIET_MODEL } from "../helpers/quietModel.js";

const RUN = ["run", ...QUIET_MODEL, "--num-requests", "5"];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-in-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

/** A sparse file of `bytes` bytes (no disk space used). */
function sparse(name: string, bytes: number): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, "");
  fs.truncateSync(p, bytes);
  return p;
}

async function fails(args: string[], expected: string, code = 1): Promise<void> {
  const t0 = performance.now();
  const res = await cli(args);
  const ms = performance.now() - t0;
  assert.equal(res.code, code, `${args.join(" ")}: exit status (${res.stderr.join(" | ")})`);
  assert.equal(res.stdout, "");
  assert.deepEqual(
    res.stderr.filter((l) => !l.startsWith("level=")),
    [expected],
  );
  assert.ok(ms < 5000, `${args.join(" ")}: took ${ms} ms`);
}

test("--workload-spec: a character device, a directory, a FIFO and an oversized file", async () => {
  await fails(
    [...RUN, "--workload-spec", "/dev/zero"],
    "error: --workload-spec /dev/zero: not a regular file (character device)",
  );
  await fails([...RUN, "--workload-spec", dir], `error: --workload-spec ${dir}: is a directory`);
  const fifo = path.join(dir, "spec.fifo");
  if (spawnSync("mkfifo", [fifo]).status === 0) {
    await fails([...RUN, "--workload-spec", fifo], `error: --workload-spec ${fifo}: not a regular file (FIFO)`);
    assert.throws(
      () => readInputFile(fifo, SPEC_FILE_LIMIT),
      (e: unknown) => e instanceof InputFileError && e.reason === "not a regular file (FIFO)",
    );
    fs.rmSync(fifo);
  }
  const big = sparse("big.yaml", 20 * 1024 * 1024);
  await fails(
    [...RUN, "--workload-spec", big],
    `error: --workload-spec ${big}: file too large (20 MiB; the limit is 16 MiB)`,
  );
});

test("a blank input path is refused with the flag", async () => {
  await fails([...RUN, "--replay-trace", " "], 'error: --replay-trace " ": blank path');
  await fails([...RUN, "--workload-spec=\t"], 'error: --workload-spec "\\t": blank path');
});

test("data files have the larger limit", async () => {
  const csv = sparse("big.csv", DATA_FILE_LIMIT + 1024 * 1024);
  await fails(
    [...RUN, "--workload", "traces", "--workload-traces-filepath", csv],
    `error: --workload-traces-filepath ${csv}: file too large (257 MiB; the limit is 256 MiB)`,
  );
  await fails(
    [...RUN, "--policy-config", "/dev/zero"],
    "error: --policy-config /dev/zero: not a regular file (character device)",
  );
});

test("the readers refuse devices too, with the path", () => {
  assert.throws(
    () => loadWorkloadSpec("/dev/zero"),
    (e: unknown) =>
      e instanceof UserError &&
      e.message === "reading workload spec: open /dev/zero: not a regular file (character device)",
  );
  assert.throws(
    () => loadWorkloadSpec(path.join(dir, "missing.yaml")),
    (e: unknown) =>
      e instanceof UserError &&
      e.message === `reading workload spec: open ${path.join(dir, "missing.yaml")}: no such file or directory`,
  );
  const small = path.join(dir, "small.txt");
  fs.writeFileSync(small, "abc");
  assert.equal(readInputFile(small, 3), "abc");
  assert.throws(
    () => readInputFile(small, 2),
    (e: unknown) => e instanceof InputFileError && e.reason === "file too large (3 bytes; the limit is 2 bytes)",
  );
  // procfs reports size 0: the limit is applied to what was read.
  assert.throws(
    () => readInputFile("/proc/self/status", 10),
    (e: unknown) => e instanceof InputFileError && /^file too large/.test(e.reason),
  );
});

test("plans, spaces and saved results: devices are refused at once", async () => {
  await fails(
    ["sweep", "/dev/zero"],
    "error: /dev/zero: cannot read the plan file: not a regular file (character device)",
    2,
  );
  await fails(
    ["optimize", "/dev/zero", "--out", path.join(dir, "o")],
    "error: /dev/zero: cannot read the space file: not a regular file (character device)",
  );
  await fails(["report", "/dev/zero"], "error: /dev/zero: cannot read: not a regular file (character device)");
  await fails(
    ["replay", "--trace-header", "/dev/zero", "--trace-data", "/dev/zero", "--model", "test-model"],
    "error: --trace-header /dev/zero: not a regular file (character device)",
  );
  assert.equal(fs.existsSync(path.join(dir, "o")), false, "the --out directory of a failed optimize is not created");
});

test("--lora-config is checked with the other input files, before any work starts", async () => {
  await fails(
    [...RUN, "--lora-config", "/dev/zero"],
    "error: --lora-config /dev/zero: not a regular file (character device)",
  );
  await fails([...RUN, "--lora-config", dir], `error: --lora-config ${dir}: is a directory`);
});

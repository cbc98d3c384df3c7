// One rule for output paths: missing directories are created (with their parents) when the output
// is written, by every command and flag; a path that cannot be created (under a regular file, in
// procfs) is still refused before anything runs. `replay --trace-output DIR/` names a directory,
// not a prefix, and is refused instead of writing the hidden files DIR/.yaml and DIR/.csv.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cli } from "../helpers/cli.js";

const FIX = fileURLToPath(new URL("../../../test/fixtures/calibration/", import.meta.url));
const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const RUN = ["run", ...M, "--num-requests", "3"];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-outdirs-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

async function ok(args: string[]): Promise<void> {
  const r = await cli(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr.join(" | ")}`);
}

test("run: --results-path, --report and --saturation-report create missing directories", async () => {
  const results = path.join(dir, "a", "b", "r.json");
  const report = path.join(dir, "c", "r.html");
  const sat = path.join(dir, "d", "e", "s.json");
  await ok([...RUN, "--results-path", results, "--report", report, "--detectors", "all", "--saturation-report", sat]);
  for (const f of [results, report, sat]) assert.ok(fs.statSync(f).isFile(), f);
  JSON.parse(fs.readFileSync(results, "utf8"));
});

test("replay: --results-path, --metrics-path and --trace-output create missing directories", async () => {
  const base = [
    "replay",
    ...M,
    "--trace-header",
    path.join(FIX, "trace-header.yaml"),
    "--trace-data",
    path.join(FIX, "trace-data.csv"),
  ];
  const prefix = path.join(dir, "replay", "t", "trace");
  await ok([
    ...base,
    "--results-path",
    path.join(dir, "replay", "r", "r.json"),
    "--metrics-path",
    path.join(dir, "replay", "m", "m.json"),
    "--trace-output",
    prefix,
  ]);
  for (const f of ["r/r.json", "m/m.json", "t/trace.yaml", "t/trace.csv"])
    assert.ok(fs.existsSync(path.join(dir, "replay", f)), f);
  for (const p of [path.join(dir, "replay", "t") + "/", path.join(dir, "replay", "t") + "/."]) {
    const r = await cli([...base, "--trace-output", p]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr.at(-1),
      `error: --trace-output ${p}: names a directory; give a file prefix (DIR/trace writes DIR/trace.yaml and DIR/trace.csv)`,
    );
  }
  assert.deepEqual(fs.readdirSync(path.join(dir, "replay", "t")).sort(), ["trace.csv", "trace.yaml"]);
});

test("report --out and sweep/optimize --out create missing directories too", async () => {
  const results = path.join(dir, "rep", "r.json");
  await ok([...RUN, "--results-path", results, "--report", path.join(dir, "rep", "r.html")]);
  const out = path.join(dir, "rep2", "deep", "again.html");
  await ok(["report", path.join(dir, "rep", "r.json"), "--out", out]);
  assert.ok(fs.existsSync(out));
});

test("a directory that cannot be created is refused before the run, with the flag", async () => {
  const file = path.join(dir, "regular.txt");
  fs.writeFileSync(file, "x");
  const r = await cli([...RUN, "--results-path", path.join(file, "sub", "r.json")]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr.at(-1)!,
    /^error: --results-path .*regular\.txt\/sub\/r\.json: .*regular\.txt is not a directory$/,
  );
  const proc = await cli([...RUN, "--results-path", "/proc/self/nope/r.json"]);
  assert.equal(proc.code, 1);
  assert.match(
    proc.stderr.at(-1)!,
    /^error: --results-path \/proc\/self\/nope\/r\.json: cannot create directories in \/proc\/self/,
  );
});

// The command line's CommonJS bundle and its code cache (scripts/buildCliBundle.mjs,
// src/cli/bundleLoader.ts): the cache is usable by the Node that built it, and runs through the
// bundle print what the modules print, plugins (loaded with import() from inside it) included.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { PACKAGE_ROOT } from "../../src/util/paths.js";
import { codeCachePath, loadCjsBundle } from "../../src/cli/bundleLoader.js";

const CLI = path.join(PACKAGE_ROOT, "dist", "src", "cli");
const BUNDLE = path.join(CLI, "main.bundle.cjs");

function viaModules(args: string[]): ReturnType<typeof spawnSync> {
  const main = JSON.stringify(path.join(CLI, "main.js"));
  const code = `const { main } = await import(${main}); process.exitCode = await main(${JSON.stringify(args)});`;
  return spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", cwd: PACKAGE_ROOT });
}

test("the build saves a code cache that this Node accepts for the CommonJS bundle", () => {
  const loaded = loadCjsBundle(BUNDLE, fs.readFileSync(codeCachePath(BUNDLE)));
  assert.equal(loaded.script.cachedDataRejected, false);
  assert.equal(typeof loaded.main, "function");
});

test("a run with a plugin through the bundle prints what the modules print", () => {
  const args = [
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--num-requests",
    "40",
    "--num-instances",
    "2",
    "--plugin",
    "examples/plugins/least-kv-scorer.mjs",
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    "free-kv:2,queue-depth:1",
  ];
  const bundled = spawnSync(process.execPath, [path.join(CLI, "bin.js"), ...args], {
    encoding: "utf8",
    cwd: PACKAGE_ROOT,
  });
  const modules = viaModules(args);
  assert.equal(bundled.status, 0, bundled.stderr);
  assert.equal(modules.status, 0, String(modules.stderr));
  assert.ok(bundled.stdout.includes('"instance_id": "instance_1"'));
  assert.equal(bundled.stdout, modules.stdout);
});

test("the package's bin file is executable, so npx blis runs it on a fresh install", () => {
  const bin = path.join(CLI, "bin.js");
  assert.equal(fs.statSync(bin).mode & 0o111, 0o111);
  const r = spawnSync(bin, ["--version"], { encoding: "utf8", cwd: PACKAGE_ROOT });
  assert.equal(r.status, 0, r.stderr);
});

test("the CommonJS bundle is ASCII, so the loader's Latin-1 read of it is exact", () => {
  const bytes = fs.readFileSync(BUNDLE);
  assert.equal(
    bytes.findIndex((b) => b > 0x7f),
    -1,
  );
});

test("an output larger than a pipe's buffer arrives whole before the process leaves", () => {
  // 100 instances print about 80 KB, beyond the 64 KB a pipe holds: bin.js exits only once stdout has taken it all.
  const args = [
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--num-requests",
    "2000",
    "--num-instances",
    "100",
    "--rate",
    "200",
  ];
  const r = spawnSync(process.execPath, [path.join(CLI, "bin.js"), ...args], { encoding: "utf8", cwd: PACKAGE_ROOT });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.length > 65536, `only ${r.stdout.length} bytes`);
  assert.equal(r.stdout.split('"instance_id"').length - 1, 101);
  assert.ok(r.stdout.trimEnd().endsWith("}"), r.stdout.slice(-200));
});

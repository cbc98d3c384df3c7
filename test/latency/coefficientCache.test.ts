import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { loadCoefficientFile } from "../../src/latency/coefficientFile.js";
import { BUNDLED_TRAINED_PHYSICS, BUNDLED_TRAINED_PHYSICS_CACHE, PACKAGE_ROOT } from "../../src/util/paths.js";

const YAML = `trained_physics_coefficients:
  alpha_coeffs: [1, 2, 3]
  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]
`;

function fixture(): { dir: string; yaml: string; json: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-coeff-cache-"));
  const yaml = path.join(dir, "c.yaml");
  fs.writeFileSync(yaml, YAML);
  return { dir, yaml, json: path.join(dir, "c.json") };
}

function writeCache(json: string, yaml: string, alpha: number[]): void {
  const st = fs.statSync(yaml);
  const data = { trained_physics_coefficients: { alpha_coeffs: alpha, beta_coeffs: [1, 2, 3, 4, 5, 6, 7] } };
  fs.writeFileSync(json, JSON.stringify({ source: { size: st.size, mtimeMs: st.mtimeMs }, data }));
}

test("a current JSON cache of a coefficient file is read instead of its YAML", () => {
  const { yaml, json } = fixture();
  writeCache(json, yaml, [9, 9, 9]);
  assert.deepEqual(
    loadCoefficientFile(yaml, "bundled coefficients", json).trained_physics_coefficients.alpha_coeffs,
    [9, 9, 9],
  );
});

test("a stale or missing JSON cache falls back to the YAML", () => {
  const stale = fixture();
  writeCache(stale.json, stale.yaml, [9, 9, 9]);
  fs.appendFileSync(stale.yaml, "# edited\n");
  assert.deepEqual(
    loadCoefficientFile(stale.yaml, "bundled coefficients", stale.json).trained_physics_coefficients.alpha_coeffs,
    [1, 2, 3],
  );
  const missing = fixture();
  assert.deepEqual(
    loadCoefficientFile(missing.yaml, "bundled coefficients", missing.json).trained_physics_coefficients.alpha_coeffs,
    [1, 2, 3],
  );
});

test("the cache still goes through the schema: a bad cached value is the same error as in YAML", () => {
  const { yaml, json } = fixture();
  writeCache(json, yaml, [1, -2, 3]);
  assert.throws(
    () => loadCoefficientFile(yaml, "bundled coefficients", json),
    /trained_physics_coefficients\.alpha_coeffs\[1\] must be a finite number >= 0/,
  );
});

test("the build's cache of the bundled trained-physics file is current and holds the YAML's data", () => {
  const c = JSON.parse(fs.readFileSync(BUNDLED_TRAINED_PHYSICS_CACHE, "utf8")) as {
    source: { size: number };
    data: unknown;
  };
  assert.equal(c.source.size, fs.statSync(BUNDLED_TRAINED_PHYSICS).size);
  const fromYaml = loadCoefficientFile(BUNDLED_TRAINED_PHYSICS, "bundled coefficients");
  assert.deepEqual(c.data, JSON.parse(JSON.stringify(fromYaml)));
});

test("the command line runs from its bundle and gives the same output as the modules", () => {
  const bin = path.join(PACKAGE_ROOT, "dist", "src", "cli", "bin.js");
  const args = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "50", "--num-instances", "2"];
  const bundled = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  const modules = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { main } = await import(${JSON.stringify(path.join(PACKAGE_ROOT, "dist", "src", "cli", "main.js"))}); process.exitCode = await main(${JSON.stringify(args)});`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(bundled.status, 0);
  assert.equal(modules.status, 0);
  assert.ok(fs.existsSync(path.join(PACKAGE_ROOT, "dist", "src", "cli", "main.bundle.js")));
  assert.ok(bundled.stdout.length > 100);
  assert.equal(bundled.stdout, modules.stdout);
});

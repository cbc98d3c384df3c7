// `blis models` gives each model's default deployment per latency model, and `blis run` says on
// one stderr line which coefficients it used and where it read them; stdout is unchanged.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).bin.blis as string);
const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];

function blis(args: string[]): { code: number | null; stdout: string; stderr: string[] } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.split("\n").filter((l) => l !== "") };
}

/** The latency lines, without their log prefix. */
function notes(stderr: string[]): string[] {
  return stderr
    .filter((l) => l.startsWith('level=info msg="latency: '))
    .map((l) => JSON.parse(l.slice("level=info msg=".length)) as string);
}

/** The columns of one model's row of `blis models` (columns are separated by two or more spaces). */
function modelRow(table: string, model: string): Record<string, string> {
  const lines = table.trimEnd().split("\n");
  const header = lines[0]!;
  const starts = [...header.matchAll(/(?:^|\s{2})(\S)/g)].map((m) => m.index! + m[0].length - 1);
  const row = lines.find((l) => l.startsWith(model + " "));
  assert.ok(row !== undefined, `no row for ${model}`);
  const out: Record<string, string> = {};
  starts.forEach((s, i) => (out[header.slice(s, starts[i + 1]).trim()] = row.slice(s, starts[i + 1]).trim()));
  return out;
}

test("blis models shows the default deployment of each latency model, and blis run uses it", () => {
  const models = blis(["models"]);
  assert.equal(models.code, 0);
  const llama = modelRow(models.stdout, "meta-llama/llama-3.1-8b-instruct");
  assert.equal(llama["DEFAULT (kernels, trained-physics, roofline)"], "H100 TP1");
  assert.equal(llama["BLACKBOX DEFAULT"], "H100 TP2 (v0.8.4)");

  const blackbox = blis(["run", ...M, "--latency-model", "blackbox", "--num-requests", "5"]);
  assert.equal(blackbox.code, 0, blackbox.stderr.join("\n"));
  assert.ok(
    blackbox.stderr.includes(
      'level=warn msg="Using default tensor parallelism 2 for meta-llama/llama-3.1-8b-instruct"',
    ),
  );
  assert.deepEqual(notes(blackbox.stderr), [
    "latency: blackbox, H100 TP 2, coefficients from bundled data/defaults.yaml (vllm/vllm-openai:v0.8.4): " +
      "alpha=[1601.35, 3.51248, 1805.54] beta=[6910.42, 17.6706, 2.83775]",
  ]);
  const plain = blis(["run", ...M, "--num-requests", "5"]);
  assert.equal(plain.code, 0);
  assert.equal(notes(plain.stderr).length, 1);
  assert.match(
    notes(plain.stderr)[0]!,
    /^latency: kernels, H100 TP 1, coefficients from bundled data\/kernels\/overheads\.yaml, kernel tables vLLM /,
  );
  const roofline = blis(["run", ...M, "--latency-model", "roofline", "--num-requests", "5"]);
  assert.deepEqual(notes(roofline.stderr), ["latency: roofline, H100 TP 1, no fitted coefficients (analytical)"]);
});

test("blis run names the --latency-coeffs file and the flag coefficients it used; stdout is unchanged", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-coeff-note-"));
  const file = path.join(dir, "coeffs.yaml");
  fs.writeFileSync(
    file,
    "trained_physics_coefficients:\n  alpha_coeffs: [15000, 700, 40]\n  beta_coeffs: [0.2, 0.0, 1.3, 0.75, 32, 4.4, 126, 481, 0.0, 1.9, 0.75]\n",
  );
  const args = ["run", ...M, "--latency-coeffs", file, "--num-requests", "20"];
  const r = blis(args);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.deepEqual(notes(r.stderr), [
    `latency: trained-physics, H100 TP 1, coefficients from --latency-coeffs ${file}: ` +
      "alpha=[15000, 700, 40] beta=[0.2, 0, 1.3, 0.75, 32, 4.4, 126, 481, 0, 1.9, 0.75]",
  ]);
  // The line is stderr only: the same run with it hidden prints the same stdout.
  const quiet = blis([...args, "--log", "error"]);
  assert.deepEqual(notes(quiet.stderr), []);
  assert.equal(quiet.stdout, r.stdout);
  assert.doesNotMatch(r.stdout, /latency: |coefficients from/);

  const flags = blis(["run", ...M, "--alpha-coeffs", "100,1,50", "--beta-coeffs", "5000,10,3", "--num-requests", "5"]);
  assert.equal(flags.code, 0, flags.stderr.join("\n"));
  assert.deepEqual(notes(flags.stderr), [
    "latency: blackbox, GPU and TP not used, coefficients from --alpha-coeffs/--beta-coeffs: alpha=[100, 1, 50] beta=[5000, 10, 3]",
  ]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a run refused by validation prints only its error line, not the latency line", () => {
  const r = blis(["run", ...M, "--num-requests", "5", "--report-interval", "0"]);
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr, ["error: --report-interval must be > 0, got 0"]);
});

// `--latency-model kernels` through the built CLI (docs/latency.md "Kernels"): runs, determinism,
// the one-line extrapolation note, unknown GPUs, `blis models --check` and the vLLM version choice;
// `blis fit --latency-model kernels` on a small measured trace (docs/calibration.md "Fit").

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exportTraceV2 } from "../../src/workload/index.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { cli, clusterBlock } from "../helpers/cli.js";
import { measuredWith, syntheticTrace } from "../calibration/synthetic.js";

/** Repository root (this file runs from dist/test/cli). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const LLAMA_8B = "meta-llama/llama-3.1-8b-instruct";

function blis(args: string[]): { code: number | null; stdout: string; stderr: string[] } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.split("\n").filter((l) => l !== "") };
}

const RUN = [
  "run",
  "--latency-model",
  "kernels",
  "--num-requests",
  "6",
  "--rate",
  "3",
  "--prompt-tokens",
  "400",
  "--output-tokens",
  "20",
  "--seed",
  "3",
];

test("kernels CLI: a run exits 0 with positive metrics, and two runs print byte-identical stdout", () => {
  const args = [...RUN, "--model", LLAMA_8B, "--hardware", "H100"];
  const a = blis(args);
  const b = blis(args);
  assert.equal(a.code, 0, a.stderr.join("\n"));
  assert.equal(b.code, 0);
  assert.equal(a.stdout, b.stdout);
  const m = clusterBlock(a.stdout);
  assert.equal(m["completed_requests"], 6);
  for (const k of ["ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms", "tokens_per_sec"])
    assert.ok((m[k] as number) > 0, `${k}: ${m[k]}`);
});

test("kernels CLI: Mixtral-8x7B on H200 at TP2 and Llama-3.1-70B on B200 at TP8 run", async () => {
  for (const [model, gpu, tp] of [
    ["mistralai/mixtral-8x7b-v0.1", "H200", "2"],
    ["meta-llama/llama-3.1-70b-instruct", "B200", "8"],
  ] as const) {
    const r = await cli([...RUN, "--model", model, "--hardware", gpu, "--tp", tp]);
    assert.equal(r.code, 0, `${model} ${gpu} TP${tp}: ${r.stderr.join("\n")}`);
    assert.equal(clusterBlock(r.stdout)["completed_requests"], 6);
  }
});

test("kernels CLI: a model too large for the GPUs is exit status 1 and one line", () => {
  const r = blis([...RUN, "--model", "meta-llama/llama-3.1-70b-instruct", "--hardware", "A100-SXM", "--tp", "1"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr.length, 1, r.stderr.join("\n"));
  assert.match(r.stderr[0]!, /^error: .*KV capacity/);
});

test("kernels CLI: a prompt longer than the prefill grid is noted once on stderr, naming the dimension", () => {
  const long = [
    "--prompt-tokens",
    "20000",
    "--prompt-tokens-stdev",
    "10",
    "--prompt-tokens-max",
    "21000",
    "--output-tokens",
    "4",
    "--output-tokens-stdev",
    "2",
  ];
  const r = blis([
    "run",
    "--latency-model",
    "kernels",
    "--model",
    LLAMA_8B,
    "--hardware",
    "H100",
    "--num-requests",
    "3",
    ...long,
    "--max-model-len",
    "32768",
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const notes = r.stderr.filter((l) => /extrapolated/.test(l));
  assert.equal(
    notes.filter((l) => /prefill attention context beyond 16384 tokens/.test(l)).length,
    1,
    r.stderr.join("\n"),
  );
  assert.equal(new Set(notes).size, notes.length, "each note once");
  assert.ok(!r.stdout.includes("extrapolated"), "notes stay off stdout");
  // A prompt inside the grid makes no note.
  const short = blis([...RUN, "--model", LLAMA_8B, "--hardware", "H100"]);
  assert.deepEqual(
    short.stderr.filter((l) => /extrapolated/.test(l)),
    [],
  );
});

test("kernels CLI: an unknown --hardware is exit status 1 and one line listing the kernel GPUs", () => {
  const r = blis([...RUN, "--model", LLAMA_8B, "--hardware", "TPU-v5"]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.length, 1, r.stderr.join("\n"));
  assert.match(r.stderr[0]!, /^error: .*TPU-v5/);
  for (const gpu of ["H100", "H200", "B200", "A100-SXM", "L40S", "RTX-PRO-6000"])
    assert.ok(r.stderr[0]!.includes(gpu), `${gpu} listed`);
});

test("kernels CLI: --vllm-version 0.24 picks the 0.24.0 tables: other step times than 0.14.0", async () => {
  const base = [...RUN, "--model", LLAMA_8B, "--hardware", "H100"];
  const old = await cli([...base, "--vllm-version", "0.14.0"]);
  const newer = await cli([...base, "--vllm-version", "0.24"]);
  const dflt = await cli(base);
  assert.equal(old.code, 0, old.stderr.join("\n"));
  assert.equal(newer.code, 0, newer.stderr.join("\n"));
  assert.equal(dflt.stdout, old.stdout, "the default is the oldest table");
  assert.notEqual(clusterBlock(newer.stdout)["e2e_mean_ms"], clusterBlock(old.stdout)["e2e_mean_ms"]);
});

test("models --check: the kernels model keeps both bounds for the three models at H100; trained-physics breaks one for Llama-3.1-8B", () => {
  const r = blis(["models", "--check"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const rows = r.stdout.split("\n").map((l) => l.trim().split(/\s{2,}/));
  const row = (model: string, lm: string): string[] | undefined =>
    rows.find((c) => c[0] === model && c[1] === "H100" && c[2] === lm);
  // The catalog names the Llama-3.1-70B architecture as Llama-3.3-70B (same config).
  for (const model of [LLAMA_8B, "meta-llama/llama-3.3-70b-instruct", "mistralai/mixtral-8x7b-instruct-v0.1"]) {
    const k = row(model, "kernels");
    assert.ok(k !== undefined, `${model}: no kernels row`);
    assert.equal(k[k.length - 1], "ok", k.join(" | "));
    assert.ok(Number(k[4]) <= 1 && Number(k[5]) <= 1, k.join(" | "));
  }
  assert.equal(row(LLAMA_8B, "trained-physics")?.at(-1), "BREAKS A BOUND");
  const violations = r.stdout.split("\n").filter((l) => /^\s+\S+ \S+ TP\d+ \S+: /.test(l));
  assert.ok(
    violations.some(
      (l) => l.includes(`${LLAMA_8B} H100 TP1 trained-physics: prefill`) && l.includes("exceeds the dense-peak bound"),
    ),
  );
  assert.deepEqual(
    violations.filter((l) => / kernels: /.test(l)),
    [],
    "no kernels violation anywhere",
  );
});

// ---- blis fit --latency-model kernels ----

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-kernels-fit-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));
const DEPLOY = ["--model", LLAMA_8B, "--hardware", "H100", "--tp", "1"];

test("fit --latency-model kernels: a trace with no measured latencies refuses, writing no file", async () => {
  const header = path.join(tmp, "unmeasured.yaml");
  exportTraceV2(syntheticTrace(20, 4, 11), header, path.join(tmp, "unmeasured.csv"));
  const out = path.join(tmp, "none.yaml");
  const r = await cli([
    "fit",
    "--latency-model",
    "kernels",
    "--data",
    header,
    ...DEPLOY,
    "--iterations",
    "1",
    "--jobs",
    "1",
    "--out",
    out,
  ]);
  assert.equal(r.code, 1, r.stderr.join("\n"));
  assert.match(r.stderr[r.stderr.length - 1]!, /^error: .*nothing to fit/);
  assert.ok(!fs.existsSync(out), "no coefficient file");
  assert.ok(!fs.existsSync(`${out}.state.json`), "no resume state");
});

test("fit --latency-model kernels: one round is fitted and flagged as a degenerate fit", async () => {
  const run: RunInput = { model: LLAMA_8B, hardware: "H100", tp: 1, latencyModel: "kernels", seed: 42 };
  const truth = { alpha: [15000, 0, 0], beta: [200, 3, 5, 0] };
  const trace = await measuredWith(
    syntheticTrace(60, 6, 5),
    { ...run, alphaCoeffs: truth.alpha, betaCoeffs: truth.beta },
    truth,
  );
  const header = path.join(tmp, "measured.yaml");
  exportTraceV2(trace, header, path.join(tmp, "measured.csv"));
  const out = path.join(tmp, "kernels.yaml");
  const r = await cli([
    "fit",
    "--latency-model",
    "kernels",
    "--data",
    header,
    ...DEPLOY,
    "--iterations",
    "1",
    "--jobs",
    "1",
    "--out",
    out,
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.ok(
    r.stderr.some((l) => /^warning: degenerate fit: --iterations 1/.test(l)),
    r.stderr.join("\n"),
  );
  assert.match(fs.readFileSync(out, "utf8"), /kernels_coefficients:/);
  assert.match(r.stdout, /As flags: --latency-model kernels --alpha-coeffs \S+ --beta-coeffs \S+,\S+,\S+,\S+\n/);
});

// `blis run` rejects bad input before the simulation starts: exit status 1, one error line that
// names the flag and the bad value, nothing on stdout, no file written
// (docs/behavior.md "Validation order and exit status").

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";
const M = ["run", "--model", MODEL, "--num-requests", "5"];
const VALID_KEYS = "throughput, tokens_per_sec, p99_ttft, p50_ttft, mean_ttft, p99_e2e, p50_e2e, mean_e2e";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-run-validation-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

/** The run fails with exactly `expected` as its error line (log lines before it are allowed). */
async function fails(args: string[], expected: string): Promise<void> {
  const label = args.join(" ");
  const res = await cli(args);
  assert.equal(res.code, 1, `${label}: exit status (${res.stderr.join(" | ")})`);
  assert.equal(res.stdout, "", `${label}: nothing on stdout`);
  assert.deepEqual(
    res.stderr.filter((l) => !l.startsWith("level=")),
    [expected],
    label,
  );
}

test("--fitness-weights is checked before the run: nothing printed, no results file", async () => {
  const results = path.join(dir, "fitness.json");
  await fails(
    [...M, "--fitness-weights", "speed:1", "--results-path", results],
    `error: Fitness evaluation failed: unknown fitness metric key "speed"; valid keys: ${VALID_KEYS}`,
  );
  await fails(
    [...M, "--fitness-weights", "throughput:x", "--results-path", results],
    'error: Invalid fitness weights: invalid value for "throughput": "x" is not a number',
  );
  assert.ok(!fs.existsSync(results));
  const ok = await cli([...M, "--fitness-weights", "throughput:1"]);
  assert.equal(ok.code, 0);
  assert.match(ok.stdout, /=== Fitness Evaluation ===\nScore: /);
});

test("--horizon must be positive when given", async () => {
  await fails([...M, "--horizon", "0"], "error: --horizon must be > 0, got 0");
  await fails([...M, "--horizon", "-1"], "error: --horizon must be > 0, got -1");
});

test("a workload spec's horizon 0 still means 'not set'", async () => {
  const spec = path.join(dir, "spec.yaml");
  fs.writeFileSync(
    spec,
    'version: "2"\nseed: 7\naggregate_rate: 10\nnum_requests: 3\nhorizon: 0\nclients:\n' +
      "  - id: c\n    rate_fraction: 1\n    arrival: {process: poisson}\n" +
      "    input_distribution: {type: constant, params: {value: 64}}\n    output_distribution: {type: constant, params: {value: 8}}\n",
  );
  const res = await cli(["run", "--model", MODEL, "--workload-spec", spec]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  assert.match(res.stdout, /"completed_requests": 3,/);
});

test("TP must split the heads for every backend that reads the model architecture", async () => {
  const heads = "its 32 attention heads and 8 KV heads must split evenly over the GPUs; valid: 1, 2, 4, 8";
  await fails([...M, "--tp", "3"], `error: --tp 3 is not valid for ${MODEL}: ${heads}`);
  await fails(
    [...M, "--roofline", "--hardware", "H100", "--tp", "1024"],
    `error: --tp 1024 is not valid for ${MODEL}: ${heads}`,
  );
  await fails(
    [...M, "--latency-model", "roofline", "--hardware", "H100", "--tp", "1024"],
    `error: --tp 1024 is not valid for ${MODEL}: ${heads}`,
  );
  // More GPUs than KV heads: BLIS's roofline divides the 8 heads anyway.
  await fails(
    [...M, "--latency-model", "roofline", "--hardware", "H100", "--tp", "16"],
    `error: --tp 16 is not valid for ${MODEL}: ${heads}`,
  );
  await fails(
    [...M, "--latency-model", "trained-physics", "--tp", "6"],
    `error: --tp 6 is not valid for ${MODEL}: ${heads}`,
  );
  for (const backend of [["--roofline"], ["--latency-model", "roofline"]]) {
    const ok = await cli([...M, ...backend, "--hardware", "H100", "--tp", "8"]);
    assert.equal(ok.code, 0, ok.stderr.join("\n"));
  }
});

test("messages name the bad value", async () => {
  const empty = path.join(dir, "empty.yaml");
  fs.writeFileSync(empty, "");
  const needs = "is empty: it needs at least one of defaults, models, workloads, trained_physics_coefficients";
  await fails([...M, "--defaults-filepath", empty], `error: defaults file ${empty} (--defaults-filepath) ${needs}`);
  const comments = path.join(dir, "comments.yaml");
  fs.writeFileSync(comments, "# no keys\n");
  await fails(
    [...M, "--defaults-filepath", comments, "--latency-model", "blackbox"],
    `error: defaults file ${comments} (--defaults-filepath) ${needs}`,
  );

  const argErr = (v: string, why: string): string =>
    `error: option '--num-requests <int>' argument '${v}' is invalid. "${v}" ${why}`;
  await fails(
    ["run", "--model", MODEL, "--num-requests", "1e20"],
    argErr("1e20", "is out of range (maximum 9007199254740991)."),
  );
  await fails(
    ["run", "--model", MODEL, "--num-requests", "99999999999999999999"],
    argErr("99999999999999999999", "is out of range (maximum 9007199254740991)."),
  );
  await fails(
    ["run", "--model", MODEL, "--num-requests", "1e3"],
    argErr("1e3", "is not an integer; write it as 1000."),
  );
  await fails(["run", "--model", MODEL, "--num-requests", "2.5"], argErr("2.5", "is not an integer."));
  await fails(
    ["run", "--model", MODEL, "--horizon", "1e30"],
    `error: option '--horizon <int64>' argument '1e30' is invalid. "1e30" is out of range (maximum 9223372036854775807).`,
  );

  const missing = await cli(["run", "--num-requests", "5"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stdout, "");
  assert.deepEqual(missing.stderr, ["error: LLM name not provided (--model). Exiting simulation."]);

  await fails(
    [...M, "--hardware", "Z900"],
    'error: GPU "Z900" has no kernel tables (H100, H200, B200, A100-SXM, A100-80, L40S, RTX-PRO-6000) and no entry in the bundled hardware file (A100-80, A100-SXM, H100, L40S)',
  );
  await fails(
    [...M, "--vllm-version", "v9.9", "--hardware", "H100", "--tp", "1"],
    `error: no blackbox coefficients for model=${MODEL} with --hardware H100 --tp 1 --vllm-version v9.9; valid: ` +
      "A100-80 TP1 vllm/vllm-openai:v0.8.4, H100 TP1 vllm/vllm-openai:v0.8.4, A100-80 TP2 vllm/vllm-openai:v0.8.4, " +
      "H100 TP2 vllm/vllm-openai:v0.8.4, A100-80 TP4 vllm/vllm-openai:v0.8.4, H100 TP4 vllm/vllm-openai:v0.8.4",
  );
});

test("pipeline latencies must not be negative (as in today's BLIS)", async () => {
  await fails([...M, "--admission-latency", "-5"], "error: --admission-latency must be >= 0, got -5");
  await fails([...M, "--routing-latency", "-1"], "error: --routing-latency must be >= 0, got -1");
});

test("length minimums below 1 are errors, except for a fixed length", async () => {
  await fails(
    [...M, "--output-tokens", "0", "--output-tokens-min", "0"],
    "error: --output-tokens-min must be >= 1, got 0",
  );
  await fails([...M, "--prompt-tokens-min", "0"], "error: --prompt-tokens-min must be >= 1, got 0");
  // The rate is checked first, as in BLIS.
  await fails([...M, "--rate", "0", "--output-tokens-min", "0"], "error: --rate must be a finite value > 0, got 0");
  // Standard deviation 0 needs a minimum of 0 (docs/behavior.md#w1): a fixed length is still accepted.
  const fixed = await cli([...M, "--output-tokens", "3", "--output-tokens-stdev", "0", "--output-tokens-min", "0"]);
  assert.equal(fixed.code, 0, fixed.stderr.join("\n"));
  assert.match(fixed.stdout, /"completed_requests": 5,/);
});

test('--routing-scorers "" is refused (BLIS took it as the defaults); leaving the flag out gives them', async () => {
  const base = [...M, "--num-instances", "3", "--routing-policy", "weighted", "--log", "info"];
  const empty = await cli([...base, "--routing-scorers", ""]);
  const none = await cli(base);
  const explicit = await cli([...base, "--routing-scorers", "prefix-affinity:3,queue-depth:2,kv-utilization:2"]);
  assert.equal(empty.code, 1);
  assert.equal(none.stdout, explicit.stdout);
  assert.ok(
    none.stderr.some((l) =>
      l.includes("Weighted routing scorers: prefix-affinity:3.0, queue-depth:2.0, kv-utilization:2.0"),
    ),
    none.stderr.join("\n"),
  );
});

test("--num-instances has a documented maximum", async () => {
  await fails(
    [...M, "--num-instances", "100000"],
    "error: --num-instances must be <= 10000, got 100000 (every simulated event visits each instance, so larger clusters run for minutes)",
  );
});

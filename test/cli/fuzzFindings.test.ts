// Inputs the long fuzz run (npm run fuzz) found answered with two stderr lines, an error naming no
// flag the user gave, a run that spent seconds in autoscaler ticks, or a search that ran every
// evaluation of a space no run could start with.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const M = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "1"];

function file(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-fuzzfind-"));
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

/** Runs the CLI and collects process warnings (the YAML library emits them outside the CLI's io). */
async function runCollectingWarnings(args: string[]): Promise<{ code: number; stderr: string[]; warnings: string[] }> {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.message);
  process.on("warning", onWarning);
  try {
    const r = await cli(args);
    await new Promise((r2) => setImmediate(r2));
    return { code: r.code, stderr: r.stderr, warnings };
  } finally {
    process.off("warning", onWarning);
  }
}

test("a collection used as a key in a policy bundle is one error line, with no YAML warning", async () => {
  const p = file("policy.yaml", "? admission: {}\npriority:\n  base_scores:\n    critical: 1\n");
  const r = await runCollectingWarnings([...M, "--policy-config", p]);
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr, [
    'error: Failed to load policy config: parsing policy config: unknown field "{ admission: {} }"',
  ]);
  assert.deepEqual(r.warnings, []);
});

test("a collection used as a key in a workload spec names its line", async () => {
  const p = file("spec.yaml", 'version: "2"\naggregate_rate: 1\nnum_requests: 1\nclients:\n  ? {a: 1}\n');
  const r = await runCollectingWarnings(["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--workload-spec", p]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.length, 1);
  assert.match(r.stderr[0]!, /^error: .*line 5/);
  assert.deepEqual(r.warnings, []);
});

test("an autoscaler interval below 1 ms is refused, from the flag and from the bundle", async () => {
  const flag = await cli([...M, "--model-autoscaler-interval-us", "1"]);
  assert.equal(flag.code, 1);
  assert.deepEqual(flag.stderr, ["error: --model-autoscaler-interval-us must be 0 (off) or at least 1000 µs, got 1"]);
  const p = file("policy.yaml", "autoscaler:\n  interval_us: 999\n");
  const bundle = await cli([...M, "--policy-config", p]);
  assert.equal(bundle.code, 1);
  assert.deepEqual(bundle.stderr, [
    "error: Invalid policy config: autoscaler.interval_us must be 0 (off) or at least 1000 µs, got 999",
  ]);
  const ok = await cli([...M, "--model-autoscaler-interval-us", "1000"]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
});

test("PD without a tensor-parallel degree names the PD flags and the ones that fix it", async () => {
  const r = await cli([...M, "--alpha-coeffs", "100,1,100", "--prefill-decode-instances", "1"]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.length, 1);
  assert.match(
    r.stderr[0]!,
    /^error: PD disaggregation \(.*--prefill-decode-instances\) requires prefill TP > 0 .*--tp or --prefill-tp/,
  );
});

/** A search space of one scorer weight against a baseline, on `base` (YAML lines under `base:`). */
function scorerSpace(base: string[], extra: string[] = []): string {
  return file(
    "space.yaml",
    [
      "seed: 1",
      "seeds: [1]",
      "budget: 2",
      "initial: 2",
      ...extra,
      "baseline: {flags: {scheduler: fcfs}}",
      "parameters:",
      "  - {name: wq, type: continuous, min: 0.1, max: 5, target: {scorer: queue-depth}}",
      "objective: {metric: ttft_mean, direction: minimize}",
      "constraints:",
      "  - {metric: throughput, min: 0.9 * baseline}",
      "base:",
      ...base,
      "",
    ].join("\n"),
  );
}

const LLAMA_FLAGS = "  flags: {num-requests: 2, model: meta-llama/llama-3.1-8b-instruct, routing-policy: weighted}";

test("optimize whose baseline run fails leaves no output directory behind", async () => {
  // The options are valid: the baseline fails only when it runs (its time limit is far too short).
  const space = scorerSpace([LLAMA_FLAGS.replace("num-requests: 2", "num-requests: 20000")], ["timeout_s: 0.001"]);
  const out = path.join(path.dirname(space), "missing", "out");
  const r = await cli(["optimize", space, "--out", out, "--jobs", "1", "--no-progress"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr.at(-1)!, /^error: the baseline has no throughput value/);
  assert.equal(fs.existsSync(path.dirname(out)), false);
});

test("optimize refuses an invalid base workload spec before any run, in one line naming the key", async () => {
  const space = scorerSpace([
    LLAMA_FLAGS,
    "  workload_spec:",
    '    version: "2"',
    "    aggregate_rate: 1",
    "    clients:",
    "      - id: c",
    "        rate_fraction: 1",
    "        arrival: {process: poisson}",
    "        input_distribution: {type: constant, params: {value: 10}}",
    "        output_distribution: {type: constant, params: {value: 2}}",
    "        multimodal:",
    "          image_distribution: {type: .nan, params: {value: 1}}",
  ]);
  const out = path.join(path.dirname(space), "out");
  const r = await cli(["optimize", space, "--out", out, "--jobs", "1", "--no-progress"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr.length, 1, r.stderr.join("\n"));
  assert.match(
    r.stderr[0]!,
    /^error: .*space\.yaml: base: .*multimodal\.image_distribution: unknown distribution type/,
  );
  assert.equal(fs.existsSync(out), false);
});

test("optimize refuses an invalid base flag before any run, without a baseline too", async () => {
  const space = file(
    "space.yaml",
    [
      "budget: 2",
      "parameters:",
      "  - {name: n, type: integer, min: 1, max: 2, target: {flag: num-instances}}",
      "objective: {metric: ttft_mean, direction: minimize}",
      "base:",
      "  flags: {num-requests: 2, model: '-'}",
      "",
    ].join("\n"),
  );
  const out = path.join(path.dirname(space), "out");
  const r = await cli(["optimize", space, "--out", out, "--jobs", "1", "--no-progress"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr.length, 1, r.stderr.join("\n"));
  assert.match(r.stderr[0]!, /^error: .*space\.yaml: base: unknown model -/);
  assert.equal(fs.existsSync(out), false);
});

test("optimize runs a base flag that every point replaces, however invalid alone", async () => {
  const space = file(
    "space.yaml",
    [
      "seeds: [1]",
      "budget: 2",
      "initial: 2",
      "parameters:",
      "  - {name: n, type: integer, min: 1, max: 2, target: {flag: num-instances}}",
      "objective: {metric: ttft_mean, direction: minimize}",
      "base:",
      "  flags: {num-requests: 2, model: meta-llama/llama-3.1-8b-instruct, num-instances: 0}",
      "",
    ].join("\n"),
  );
  const r = await cli(["optimize", space, "--out", path.join(path.dirname(space), "out"), "--jobs", "1"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.ok(r.stderr.some((l) => /^optimize: 2 simulations run/.test(l)));
});

test("a negative --num-requests with a workload spec names the flag (was: 'maxRequests must be non-negative')", async () => {
  const spec =
    "inference_perf:\n  stages:\n    - rate: 1\n      duration: 1\n  shared_prefix:\n    num_unique_system_prompts: 1\n";
  const p = file(
    "spec.yaml",
    `${spec}    num_users_per_system_prompt: 1\n    system_prompt_len: 1\n    question_len: 1\n    output_len: 1\n`,
  );
  const r = await cli([
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--workload-spec",
    p,
    "--num-requests=-1",
  ]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.deepEqual(r.stderr, ["error: --num-requests must be 0 or more with --workload-spec, got -1"]);
});

test("a negative --num-requests bounded by --horizon names the flag (was: 'maxRequests must be non-negative')", async () => {
  const args = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--horizon", "1", "--num-requests=-1"];
  const r = await cli(args);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.deepEqual(r.stderr, ["error: --num-requests must be 0 or more, got -1"]);
});

test("an empty --defaults-filepath with a preset names the flag (was: 'Failed to read defaults file: open : …')", async () => {
  const args = ["run", "--model", "test-model", "--alpha-coeffs", "100,1,100", "--beta-coeffs", "1000,2,1"];
  const r = await cli([...args, "--defaults-filepath", "", "--workload", "abc"]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr.length, 1);
  assert.match(r.stderr[0]!, /^error: Failed to read defaults file \(--defaults-filepath\): /);
});

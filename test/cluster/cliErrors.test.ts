// Bad input through the CLI (docs/behavior.md "Validation order and exit status"): one stderr line,
// exit 1 (2 for the coefficient panic), no stack trace, no results file when the run fails before
// simulating.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BASE } from "./helpers.js";
import { cli } from "../helpers/cli.js";
import { scorers } from "../../src/cluster/scorers/scorer.js";
import "../../src/gateway/builtins.js";

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-err-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

let k = 0;
async function fails(args: string[], code: number, expected: string | RegExp, base = BASE): Promise<void> {
  const file = path.join(dir, `r${k++}.json`);
  const res = await cli([...base, ...args, "--results-path", file]);
  const label = args.join(" ");
  assert.equal(res.code, code, `${label}: exit status`);
  assert.equal(res.stdout, "", `${label}: nothing on stdout`);
  const errors = res.stderr.filter((l) => !l.startsWith("level="));
  assert.equal(errors.length, 1, `${label}: exactly one error line, got ${JSON.stringify(res.stderr)}`);
  assert.equal(errors[0], res.stderr[res.stderr.length - 1], `${label}: the error is the last line`);
  if (typeof expected === "string") assert.equal(errors[0], expected, label);
  else assert.match(errors[0]!, expected, label);
  assert.ok(!res.stderr.some((l) => /^\s+at /.test(l) || l.includes("\n")), `${label}: no stack trace`);
  assert.equal(fs.existsSync(file), false, `${label}: no results file`);
}

test("unknown policy names list the valid names sorted (extensions included)", async () => {
  await fails(
    ["--routing-policy", "bogus"],
    1,
    'error: Unknown routing policy "bogus". Valid: always-busiest, least-loaded, round-robin, weighted',
  );
  await fails(
    ["--admission-policy", "Always-Admit"],
    1,
    'error: Unknown admission policy "Always-Admit". Valid: always-admit, gaie-legacy, reject-all, slo-gated, tier-shed, token-bucket',
  );
  await fails(
    ["--priority-policy", "fifo"],
    1,
    'error: Unknown priority policy "fifo". Valid: constant, inverted-slo, slo-based, slo-class, slo-tiered, static-class',
  );
  await fails(
    ["--scheduler", "lifo"],
    1,
    'error: Unknown scheduler "lifo". Valid: fcfs, priority-fcfs, reverse-priority, sjf',
  );
  // Admission is checked before routing.
  await fails(["--routing-policy", "x", "--admission-policy", "y"], 1, /Unknown admission policy "y"/);
});

test("empty policy names mean the defaults", async () => {
  const res = await cli([
    ...BASE,
    "--routing-policy",
    "",
    "--admission-policy",
    "",
    "--priority-policy",
    "",
    "--scheduler",
    "",
  ]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  const plain = await cli(BASE);
  assert.equal(res.stdout, plain.stdout);
});

test("instance and batch limits", async () => {
  await fails(["--num-instances", "0"], 1, "error: --num-instances must be > 0, got 0");
  await fails(["--num-instances", "-3"], 1, "error: --num-instances must be > 0, got -3");
  await fails(["--total-kv-blocks", "-1"], 1, "error: --total-kv-blocks must be > 0, got -1");
  await fails(["--block-size-in-tokens", "0"], 1, "error: --block-size-in-tokens must be > 0, got 0");
  await fails(["--max-num-running-reqs", "0"], 1, "error: --max-num-running-reqs must be > 0, got 0");
  await fails(
    ["--long-prefill-token-threshold", "-1"],
    1,
    "error: --long-prefill-token-threshold must be >= 0, got -1",
  );
  await fails(["--snapshot-refresh-interval", "-5"], 1, "error: --snapshot-refresh-interval must be >= 0, got -5");
});

test("workload checks: --rate, prompt mean and stdev ranges", async () => {
  await fails(["--rate", "0"], 1, "error: --rate must be a finite value > 0, got 0");
  await fails(["--rate", "-1"], 1, /^error: --rate must be a finite value > 0, got -1$/);
  const range =
    "error: prompt-tokens and prompt-tokens-stdev should be in range [prompt-tokens-min, prompt-tokens-max]";
  await fails(["--prompt-tokens", "500"], 1, range); // max is 128 in the base line
  await fails(["--prompt-tokens-stdev", "4"], 1, range, BASE); // below min 8 (Compat: the stdev is range-checked)
  await fails(
    ["--output-tokens", "1"],
    1,
    /^error: output-tokens and output-tokens-stdev should be in range \[output-tokens-min, output-tokens-max\]$/,
  );
  // Workload errors come before the instance-limit checks.
  await fails(["--rate", "0", "--num-instances", "0"], 1, /--rate/);
});

test("model resolution: missing --model, unknown model without coefficients", async () => {
  await fails([], 1, "error: LLM name not provided (--model). Exiting simulation.", ["run"]);
  await fails([], 1, /^error: unknown model no-such-model: no defaults for it/, ["run", "--model", "no-such-model"]);
  await fails([], 1, /^error: no blackbox coefficients for model=no-such-model \(models with coefficients: /, [
    "run",
    "--model",
    "no-such-model",
    "--latency-model",
    "blackbox",
  ]);
  await fails(
    [],
    1,
    /^error: no blackbox coefficients for model=meta-llama\/llama-3.1-8b-instruct with --hardware H100 --tp 3 .*; valid: .*H100 TP2 vllm\/vllm-openai:v0.8.4/,
    ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--latency-model", "blackbox", "--tp", "3"],
  );
});

test("coefficient lists: malformed → exit 1; too short → exit 2 with a panic line", async () => {
  await fails(["--alpha-coeffs", "1,x,3"], 1, /^error: .*--alpha-coeffs.*1,x,3/);
  await fails(["--alpha-coeffs", "1,2"], 2, /^panic: .*AlphaCoeffs requires at least 3 elements, got 2/);
  await fails(["--beta-coeffs", "5"], 2, /^panic: .*BetaCoeffs requires at least 3 elements, got 1/);
});

test("command-line parse errors: unknown flag, non-integer, non-numeric, bad bool", async () => {
  await fails(["--bogus-flag"], 1, /^error: unknown option '--bogus-flag'/);
  await fails(["--num-requests", "1.5"], 1, /^error: .*--num-requests.*1\.5/);
  await fails(["--num-instances", "two"], 1, /^error: .*--num-instances.*two/);
  await fails(["--rate", "fast"], 1, /^error: .*--rate.*fast/);
  await fails(["--seed", "1e3"], 1, /^error: .*--seed/);
  await fails(["--log", "loud"], 1, "error: Invalid log level: loud");
});

test("extension and KV flags", async () => {
  await fails(
    ["--admission-load-threshold", "-1"],
    1,
    "error: --admission-load-threshold must be a finite value >= 0, got -1",
  );
  await fails(["--priority-bridge", "always"], 1, 'error: Unknown priority bridge "always". Valid: floor, hint, none');
  await fails(
    ["--kv-offload-threshold", "1.5"],
    1,
    "error: --kv-offload-threshold must be a finite value in [0, 1], got 1.5",
  );
  await fails(["--kv-cpu-blocks", "-1"], 1, "error: --kv-cpu-blocks must be >= 0, got -1");
  await fails(["--slo-age-weight", "-1"], 1, /^error: --slo-age-weight must be a finite value >= 0/);
  await fails(["--slo-cache-weights", "critical:2"], 1, /^error: Invalid --slo-cache-weights: /);
  await fails(
    ["--token-bucket-capacity", "0", "--admission-policy", "token-bucket"],
    1,
    "error: --token-bucket-capacity must be a finite value > 0, got 0",
  );
});

test("routing flags: checked whatever the routing policy and scorers, before the simulation starts", async () => {
  await fails(
    ["--routing-tie-break", "lowest"],
    1,
    'error: --routing-tie-break must be "first" or "random", got "lowest"',
  );
  await fails(["--cache-signal-delay", "-1"], 1, "error: --cache-signal-delay must be >= 0, got -1");
  await fails(["--queue-depth-signal", "Q"], 1, 'error: --queue-depth-signal must be "effective" or "queue", got "Q"');
  await fails(
    [
      "--routing-policy",
      "weighted",
      "--routing-scorers",
      "precise-prefix-cache:2,queue-depth:1",
      "--cache-signal-delay",
      "-50000",
    ],
    1,
    "error: --cache-signal-delay must be >= 0, got -50000",
  );
  await fails(["--cache-signal-delay", "1.5"], 1, /^error: .*--cache-signal-delay.*1\.5/);
  // The tie-break is a policy parameter: checked with the policy names, before the KV flags.
  await fails(["--routing-tie-break", "x", "--kv-cpu-blocks", "-1"], 1, /--routing-tie-break/);
  await fails(
    ["--routing-policy", "weighted", "--routing-tie-break", "x", "--admission-policy", "bogus"],
    1,
    /Unknown admission policy "bogus"/,
  );
  await fails(
    ["--routing-policy", "weighted", "--routing-scorers", "lora-affinty:1"],
    1,
    new RegExp(
      `^error: Invalid --routing-scorers: unknown scorer "lora-affinty"; valid: ${escapeRegExp(scorers.names().join(", "))}$`,
    ),
  );
});

test("today's scorers run through the CLI, with live and stale cache signals", async () => {
  const profile =
    "precise-prefix-cache:2,no-hit-lru:1,active-requests:1,running-requests:1,load-aware:1,vllm-dp:1,queue-depth:1";
  const base = [
    ...BASE,
    "--num-instances",
    "3",
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    profile,
    "--prefix-tokens",
    "48",
    "--rate",
    "400",
  ];
  const live = await cli([...base, "--cache-signal-delay", "0", "--queue-depth-signal", "queue"]);
  assert.equal(live.code, 0, live.stderr.join("\n"));
  assert.match(live.stdout, /"completed_requests": 12/);
  const again = await cli([...base, "--cache-signal-delay", "0", "--queue-depth-signal", "queue"]);
  assert.equal(again.stdout, live.stdout);
  const stale = await cli([...base, "--queue-depth-signal", "queue"]);
  assert.equal(stale.code, 0, stale.stderr.join("\n"));
  assert.notEqual(stale.stdout, live.stdout, "the default 50 ms delay hides the shared prefix from the router");
});

test("a token-bucket capacity of 0 is refused even when token-bucket is not selected", async () => {
  const res = await cli([...BASE, "--token-bucket-capacity", "0"]);
  assert.equal(res.code, 1);
  assert.equal(res.stderr.at(-1), "error: --token-bucket-capacity must be a finite value > 0, got 0");
});

test("non-finite float flag values reach the range checks (NaN/Inf coefficients panic with exit 2)", async () => {
  const hint = "float flags accept inf/nan so the range checks (and the exit-2 coefficient panic) apply";
  const cases: [string[], number, RegExp][] = [
    [["--beta-coeffs", "1,nan,1"], 2, /^panic: /],
    [["--alpha-coeffs", "1,inf,1"], 2, /^panic: /],
    [["--rate", "inf"], 1, /^error: --rate must be a finite value > 0, got /],
    [
      ["--token-bucket-capacity", "inf", "--admission-policy", "token-bucket"],
      1,
      /^error: --token-bucket-capacity must be a finite value > 0, got /,
    ],
    [["--kv-offload-threshold", "nan"], 1, /^error: --kv-offload-threshold must be a finite value in \[0, 1\], got /],
  ];
  const wrong: string[] = [];
  for (const [args, code, re] of cases) {
    const res = await cli([...BASE, ...args]);
    const line = res.stderr[res.stderr.length - 1] ?? "";
    if (res.code !== code || !re.test(line)) wrong.push(`${args.join(" ")} → exit ${res.code}: ${line}`);
  }
  assert.deepEqual(wrong, [], hint);
});

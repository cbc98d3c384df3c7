// `blis run --workload-spec`: specs that cannot describe a workload fail before the simulation with
// one line naming the client, the key and the line (docs/behavior.md#w23); --rate replaces the
// spec's aggregate_rate (docs/behavior.md#w24); a spec without a bound says how to give one.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-wl-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

/** Exit status 1, nothing on stdout, exactly `expected` on stderr (log lines aside). */
async function fails(args: string[], expected: string): Promise<void> {
  const r = await cli(args);
  assert.equal(r.code, 1, r.stderr.join("\n"));
  assert.equal(r.stdout, "");
  assert.deepEqual(
    r.stderr.filter((l) => !l.startsWith("level=")),
    [expected],
  );
}

const CLIENT = `clients:
  - id: chat
    rate_fraction: 1
    arrival: {process: poisson}
    output_distribution: {type: constant, params: {value: 10}}
`;
const spec = (top: string, input: string, extra = ""): string =>
  `${top}\n${CLIENT}    input_distribution: {type: ${input}}\n${extra}`;
const TOP = 'version: "2"\naggregate_rate: 10\nnum_requests: 20';
const GEN = "error: Failed to generate workload: invalid workload spec: ";

test("bad values in a spec are rejected with the client, the key and the line", async () => {
  const cases: [string, string, string][] = [
    [
      "gaussian.yaml",
      spec(TOP, "gaussian, params: {mean: -100, std_dev: 10, min: 1, max: 200}"),
      `${GEN}client[0].input_distribution.params.mean must be >= 0, got -100.000000 (line 9, column 51)`,
    ],
    [
      "exponential.yaml",
      spec(TOP, "exponential, params: {mean: -5}"),
      `${GEN}client[0].input_distribution.params.mean must be > 0, got -5.000000 (line 9, column 54)`,
    ],
    [
      "version.yaml",
      spec(TOP.replace('"2"', '"7"'), "constant, params: {value: 5}"),
      `${GEN}unknown version "7"; valid: "2", or "1", "1.0" or absent for v1 files (line 1, column 1)`,
    ],
    [
      "pareto.yaml",
      spec(TOP, "pareto_lognormal, params: {alpha: -1, xm: 0, mu: 1, sigma: -1, mix_weight: 7}"),
      `${GEN}client[0].input_distribution.params.alpha must be > 0, got -1.000000 (line 9, column 59)`,
    ],
    [
      "multiturn.yaml",
      spec(
        TOP,
        "constant, params: {value: 5}",
        "    reasoning:\n      multi_turn: {max_rounds: -1, think_time_us: -5, context_growth: explode}\n",
      ),
      `${GEN}client[0].reasoning.multi_turn.max_rounds must be > 0, got -1 (line 11, column 20)`,
    ],
    [
      "negative-cap.yaml",
      spec(TOP.replace("num_requests: 20", "num_requests: -50"), "constant, params: {value: 5}"),
      "error: invalid workload spec: num_requests must be > 0 (or absent for no cap), got -50 (line 3, column 1)",
    ],
  ];
  for (const [name, text, expected] of cases)
    await fails(["run", ...M, "--workload-spec", write(name, text)], expected);
  // The other keys of the multi-turn case, one at a time.
  const mt = (body: string) =>
    spec(TOP, "constant, params: {value: 5}", `    reasoning:\n      multi_turn: {${body}}\n`);
  await fails(
    ["run", ...M, "--workload-spec", write("think.yaml", mt("max_rounds: 2, think_time_us: -5"))],
    `${GEN}client[0].reasoning.multi_turn.think_time_us must be >= 0, got -5 (line 11, column 35)`,
  );
  await fails(
    ["run", ...M, "--workload-spec", write("growth.yaml", mt("max_rounds: 2, context_growth: explode"))],
    `${GEN}client[0].reasoning.multi_turn: unknown context_growth "explode"; valid: accumulate, or empty (line 11, column 35)`,
  );
});

test("a spec without num_requests or horizon says which flags bound it", async () => {
  const file = write("unbounded.yaml", spec('version: "2"\naggregate_rate: 10', "constant, params: {value: 5}"));
  await fails(
    ["run", ...M, "--workload-spec", file],
    "error: Workload requires either num_requests or --horizon to bound generation; pass --num-requests N or --horizon T, or set num_requests in the spec",
  );
  const r = await cli(["run", ...M, "--workload-spec", file, "--num-requests", "5"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  // A flag that replaces the spec's cap also replaces a negative one.
  const negative = write(
    "neg.yaml",
    spec(TOP.replace("num_requests: 20", "num_requests: -50"), "constant, params: {value: 5}"),
  );
  assert.equal((await cli(["run", ...M, "--workload-spec", negative, "--num-requests", "5"])).code, 0);
});

test("--rate replaces the spec's aggregate_rate; without --rate the spec's rate holds", async () => {
  const input = "exponential, params: {mean: 50}";
  const at10 = write("rate10.yaml", spec(TOP, input));
  const at40 = write("rate40.yaml", spec(TOP.replace("aggregate_rate: 10", "aggregate_rate: 40"), input));
  const noRate = write("norate.yaml", spec('version: "2"\nnum_requests: 20', input));
  const base = await cli(["run", ...M, "--workload-spec", at10]);
  const spec40 = await cli(["run", ...M, "--workload-spec", at40]);
  const flag40 = await cli(["run", ...M, "--workload-spec", at10, "--rate", "40"]);
  const filled = await cli(["run", ...M, "--workload-spec", noRate, "--rate", "40"]);
  for (const r of [base, spec40, flag40, filled]) assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.equal(flag40.stdout, spec40.stdout);
  assert.equal(filled.stdout, spec40.stdout);
  assert.notEqual(base.stdout, spec40.stdout);
  assert.equal((await cli(["run", ...M, "--workload-spec", at10, "--rate", "10"])).stdout, base.stdout);
  await fails(["run", ...M, "--workload-spec", at10, "--rate", "0"], "error: --rate must be a finite value > 0, got 0");
  const ip = write(
    "ip.yaml",
    "inference_perf:\n  stages: [{rate: 5, duration: 2}]\n  shared_prefix: {num_unique_system_prompts: 1, num_users_per_system_prompt: 1, system_prompt_len: 10, question_len: 10, output_len: 5}\n",
  );
  await fails(
    ["run", ...M, "--workload-spec", ip, "--rate", "3"],
    "error: --rate cannot be used with an inference_perf workload spec: its stages set the rate; change the stage rates in the file",
  );
  assert.equal((await cli(["run", ...M, "--workload-spec", ip])).code, 0);
});

test("compose names the input file and key; convert scenario and compose take --num-requests", async () => {
  const good = write("good.yaml", spec(TOP, "constant, params: {value: 5}"));
  const zero = write("zero.yaml", spec('version: "2"\naggregate_rate: 0', "constant, params: {value: 5}"));
  await fails(
    ["compose", "--from", good, "--from", zero],
    `error: compose: ${zero}: aggregate_rate must be positive, got 0.000000 (line 2, column 1)`,
  );
  const absent = write("absent.yaml", spec('version: "2"', "constant, params: {value: 5}"));
  await fails(
    ["compose", "--from", good, "--from", absent],
    `error: compose: ${absent}: aggregate_rate must be positive, got 0.000000`,
  );
  const bad = write("badclient.yaml", spec(TOP, "exponential, params: {mean: -5}"));
  await fails(
    ["compose", "--from", bad],
    `error: compose: ${bad}: client[0].input_distribution.params.mean must be > 0, got -5.000000 (line 9, column 54)`,
  );
  await fails(
    ["compose", "--from", good, "--from", path.join(dir, "missing.yaml")],
    `error: compose: ${path.join(dir, "missing.yaml")}: reading workload spec: open ${path.join(dir, "missing.yaml")}: no such file or directory`,
  );
  await fails(["compose", "--from", good, "--num-requests", "0"], "error: --num-requests must be > 0, got 0");
  await fails(
    ["convert", "scenario", "--name", "bursty", "--num-requests", "-1"],
    "error: --num-requests must be > 0, got -1",
  );
  const composed = await cli(["compose", "--from", good, "--from", good, "--num-requests", "30"]);
  assert.match(composed.stdout, /^num_requests: 30$/m);
  const scenario = await cli(["convert", "scenario", "--name", "mixed-slo", "--rate", "20", "--num-requests", "25"]);
  assert.match(scenario.stdout, /^num_requests: 25$/m);
  const run = await cli(["run", ...M, "--workload-spec", write("scenario.yaml", scenario.stdout)]);
  assert.equal(run.code, 0, run.stderr.join("\n"));
  assert.match(run.stdout, /"injected_requests": 25,/);
});

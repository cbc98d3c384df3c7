// The playground reads its URL with the CLI's flag table and value parsers: a bad value gets the
// message `blis run` prints, every flag has its URL parameter, and the command line it shows
// runs the same configuration.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli, splitArgs } from "../helpers/cli.js";
import { commandLine, fieldOf, flagInfos, parseParams } from "../../web/worker/params.js";
import { runFlags } from "../../src/config/runFlags.js";
import { RUN_INPUT_FLAGS } from "../../src/cli/inputPaths.js";
import type { Params } from "../../web/shared/protocol.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

/** The CLI's first stderr line for `blis run --model M --<name> <value>`. */
async function cliError(name: string, value: string): Promise<string> {
  const r = await cli(["run", "--model", MODEL, `--${name}`, value]);
  assert.equal(r.code, 1, `--${name} ${value} should fail`);
  return r.stderr[0]!;
}

test("a value the CLI rejects while parsing gets the CLI's message, on its field", async () => {
  const cases: [string, string][] = [
    ["rate", "abc"],
    ["num-requests", "1e3"],
    ["num-instances", "2.5"],
    ["seed", "99999999999999999999"],
    ["alpha-coeffs", "1,x"],
    ["roofline", "maybe"],
  ];
  for (const [name, value] of cases) {
    const { errors } = parseParams([
      ["model", MODEL],
      [name, value],
    ]);
    assert.deepEqual(errors, [{ field: name, message: await cliError(name, value) }], `${name}=${value}`);
  }
});

test("an unknown parameter is the CLI's unknown option; file flags are refused by name", async () => {
  const r = await cli(["run", "--model", MODEL, "--bogus-flag", "1"]);
  const { errors } = parseParams([
    ["model", MODEL],
    ["bogus-flag", "1"],
    ["results-path", "/tmp/x.json"],
  ]);
  assert.equal(errors[0]!.message, r.stderr[0]);
  assert.equal(errors[1]!.field, "results-path");
  assert.match(errors[1]!.message, /^error: --results-path is not available in the playground/);
});

test("valid parameters become the run input the CLI builds; empty ones are not given", () => {
  const { input, errors, specYaml } = parseParams([
    ["model", MODEL],
    ["rate", "12.5"],
    ["num-instances", "4"],
    ["alpha-coeffs", "1,2,3"],
    ["roofline", "false"],
    ["tp", ""],
    ["run", "1"],
    ["workload-spec-yaml", "version: 2\n"],
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(input, {
    model: MODEL,
    rate: 12.5,
    numInstances: 4,
    alphaCoeffs: [1, 2, 3],
    roofline: false,
    workloadSpec: "workload.yaml",
  });
  assert.equal(specYaml, "version: 2\n");
});

test("every flag that reads a file is refused by the page", () => {
  const unavailable = new Set(
    flagInfos()
      .filter((f) => f.unavailable !== "")
      .map((f) => f.name),
  );
  for (const flag of [...RUN_INPUT_FLAGS, "--saturation-report", "--results-path", "--report"]) {
    assert.ok(unavailable.has(flag.slice(2)), `${flag} is offered`);
  }
});

test("every run flag is a parameter of the page", () => {
  const names = new Set(flagInfos().map((f) => f.name));
  for (const f of runFlags()) assert.ok(names.has(f.flag.slice(2)), f.flag);
});

test("the command line runs the same configuration and quotes what a shell would split", async () => {
  const params: Params = [
    ["model", MODEL],
    ["num-requests", "40"],
    ["routing-policy", "weighted"],
    ["routing-scorers", "queue-depth:2,kv-utilization:1"],
    ["num-instances", "2"],
    ["sweep-points", "5"],
  ];
  const cmd = commandLine(params);
  assert.equal(
    cmd,
    `npx blis run --model ${MODEL} --num-requests 40 --routing-policy weighted --routing-scorers queue-depth:2,kv-utilization:1 --num-instances 2`,
  );
  const r = await cli(splitArgs(cmd).slice(2));
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.equal(commandLine([["fitness-weights", "p99_ttft:1 x"]]), "npx blis run --fitness-weights 'p99_ttft:1 x'");
  assert.equal(commandLine([["workload-spec-yaml", "a: 1"]]), "npx blis run --workload-spec workload.yaml");
});

test("a message is shown on the field it names", () => {
  assert.equal(fieldOf("error: --num-instances must be > 0", []), "num-instances");
  assert.equal(fieldOf("error: something else entirely", []), "");
  assert.equal(fieldOf("error: --workload-spec: bad", [["workload-spec-yaml", "x"]]), "workload-spec-yaml");
});

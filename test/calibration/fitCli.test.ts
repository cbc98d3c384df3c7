// `blis fit` from the command line (docs/calibration.md "Fit"): worker processes do not change the
// result, β8 is freed when the data exercises it, and bad values are one-line errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { cli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-fit-cli-"));
const QWEN = "h100-qwen3-14b-tp1-codegen#stage0";
const SCOUT = "h100-llama-4-scout-fp8-tp2-codegen#stage0";

test("fit: --jobs 2 gives the same coefficients and report as --jobs 1", async () => {
  const run = (jobs: number) =>
    cli([
      "fit",
      "--data",
      QWEN,
      SCOUT,
      "--holdout",
      "h100-qwen3-14b-tp1-codegen#stage1",
      "--iterations",
      "1",
      "--jobs",
      String(jobs),
      "--out",
      path.join(tmp, `j${jobs}.yaml`),
    ]);
  const one = await run(1);
  const two = await run(2);
  assert.equal(one.code, 0, one.stderr.join("\n"));
  assert.equal(two.code, 0, two.stderr.join("\n"));
  assert.equal(two.stdout.replaceAll("j2.yaml", "j1.yaml"), one.stdout);
  assert.equal(fs.readFileSync(path.join(tmp, "j2.yaml"), "utf8"), fs.readFileSync(path.join(tmp, "j1.yaml"), "utf8"));
  assert.match(one.stdout, /## Held-out experiments/);
  // β8 only acts on interleaved MoE (Llama-4-Scout): freed because the data has it.
  assert.ok(
    one.stderr.some((l) => /also fitting beta8/.test(l)),
    one.stderr.join("\n"),
  );
  const file = parse(fs.readFileSync(path.join(tmp, "j1.yaml"), "utf8")) as {
    fit: { free: string[] };
    trained_physics_coefficients: { beta_coeffs: number[] };
  };
  assert.ok(file.fit.free.includes("beta8"));
  assert.ok(!file.fit.free.includes("beta_ep"), "β_EP needs MoE with dp > 1");
  assert.equal(file.trained_physics_coefficients.beta_coeffs.length, 11);
  assert.ok(!fs.existsSync(path.join(tmp, "j1.yaml.state.json")), "the resume state is removed after a finished fit");
});

test("fit: a dense model alone leaves β8 at its start value", async () => {
  const r = await cli([
    "fit",
    "--data",
    QWEN,
    "--iterations",
    "0",
    "--jobs",
    "1",
    "--out",
    path.join(tmp, "dense.yaml"),
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.ok(!r.stderr.some((l) => /also fitting/.test(l)));
});

test("fit: bad values are one-line errors naming the flag", async () => {
  const cases: [string[], RegExp][] = [
    [["--jobs", "0"], /--jobs must be an integer >= 1/],
    [["--terms", "quadratic"], /--terms: unknown term "quadratic"/],
    [["--params", "alpha0,gamma"], /--params: unknown parameter "gamma"/],
    [["--data", path.join(tmp, "missing.csv")], /missing\.csv: no such file/],
    [["--data", "no-such-experiment"], /no-such-experiment: no experiment with this id/],
  ];
  for (const [extra, want] of cases) {
    const args = ["fit", "--data", QWEN, "--out", path.join(tmp, "bad.yaml"), "--iterations", "0", ...extra];
    const r = await cli(args);
    assert.equal(r.code, 1, `${extra.join(" ")}: exit ${r.code}`);
    const err = r.stderr.filter((l) => l.startsWith("error"));
    assert.equal(err.length, 1, r.stderr.join("\n"));
    assert.match(err[0]!, want);
    assert.ok(!fs.existsSync(path.join(tmp, "bad.yaml")), `${extra.join(" ")}: nothing written`);
  }
});

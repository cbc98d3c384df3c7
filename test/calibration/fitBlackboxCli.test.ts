// `blis fit --latency-model blackbox` from the command line (docs/calibration.md "Fit"): the
// printed flags are accepted by `blis replay` and reproduce the fitted latencies.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { exportTraceV2 } from "../../src/workload/index.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { cli } from "../helpers/cli.js";
import { measuredWith, syntheticTrace } from "./synthetic.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-fit-blackbox-"));
const DEPLOY = ["--model", "meta-llama/llama-3.1-8b-instruct", "--hardware", "H100", "--tp", "1"];
const START = ["--alpha-coeffs", "232.46,1.75,3357.44", "--beta-coeffs", "5752.7,17.25,6.0"];

type Row = { ttft_us: number; e2e_us: number; real_ttft_us: number; real_e2e_us: number };

test("fit --latency-model blackbox: its flags reproduce the fitted errors in blis replay", async () => {
  const run: RunInput = {
    model: "meta-llama/llama-3.1-8b-instruct",
    hardware: "H100",
    tp: 1,
    latencyModel: "blackbox",
    seed: 42,
  };
  const truth = { alpha: [20000, 1.75, 3357.44], beta: [4000, 15, 30] };
  const trace = await measuredWith(
    syntheticTrace(400, 8, 5),
    { ...run, alphaCoeffs: truth.alpha, betaCoeffs: truth.beta },
    truth,
  );
  const header = path.join(tmp, "measured.yaml");
  const data = path.join(tmp, "measured.csv");
  exportTraceV2(trace, header, data);
  const out = path.join(tmp, "bb.yaml");
  const args = [
    "fit",
    "--latency-model",
    "blackbox",
    "--data",
    header,
    ...DEPLOY,
    ...START,
    "--iterations",
    "6",
    "--jobs",
    "1",
  ];
  const fit = await cli([...args, "--out", out]);
  assert.equal(fit.code, 0, fit.stderr.join("\n"));
  const file = parse(fs.readFileSync(out, "utf8")) as {
    blackbox_coefficients: { alpha_coeffs: number[]; beta_coeffs: number[] };
  };
  assert.equal(file.blackbox_coefficients.alpha_coeffs.length, 3);
  assert.equal(file.blackbox_coefficients.beta_coeffs.length, 3);
  const m = /^As flags: (--latency-model blackbox --alpha-coeffs \S+ --beta-coeffs \S+)$/m.exec(fit.stdout);
  assert.ok(m !== null, fit.stdout);
  assert.match(m[1]!, new RegExp(`--alpha-coeffs ${file.blackbox_coefficients.alpha_coeffs.join(",")} `));
  // The fit's "after" column: mean APE of the mean TTFT and E2E of the one experiment.
  const row = fit.stdout.split("\n").find((l) => l.startsWith("| measured |"));
  assert.ok(row !== undefined, fit.stdout);
  const cells = row.split("|").map((c) => c.trim());
  const [ttftAfter, e2eAfter] = [cells[4], cells[6]];

  const results = path.join(tmp, "replay.json");
  const rep = await cli([
    "replay",
    "--trace-header",
    header,
    "--trace-data",
    data,
    ...DEPLOY,
    ...m[1]!.split(" "),
    "--results-path",
    results,
  ]);
  assert.equal(rep.code, 0, rep.stderr.join("\n"));
  const parsed = JSON.parse(fs.readFileSync(results, "utf8")) as Row[] | { requests: Row[] };
  const rows = Array.isArray(parsed) ? parsed : parsed.requests;
  assert.equal(rows.length, 400);
  const ape = (sim: (r: Row) => number, real: (r: Row) => number): string => {
    const s = rows.reduce((a, r) => a + sim(r), 0);
    const y = rows.reduce((a, r) => a + real(r), 0);
    return `${((Math.abs(s - y) / y) * 100).toFixed(1)}%`;
  };
  assert.equal(
    ape(
      (r) => r.ttft_us,
      (r) => r.real_ttft_us,
    ),
    ttftAfter,
  );
  assert.equal(
    ape(
      (r) => r.e2e_us,
      (r) => r.real_e2e_us,
    ),
    e2eAfter,
  );
});

test("fit --latency-model blackbox: a model without bundled coefficients asks for starting ones", async () => {
  const r = await cli([
    "fit",
    "--latency-model",
    "blackbox",
    "--data",
    path.join(tmp, "measured.yaml"),
    "--model",
    "org/unknown-model",
    "--out",
    path.join(tmp, "x.yaml"),
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stderr.join("\n"), /give starting coefficients with --alpha-coeffs/);
});

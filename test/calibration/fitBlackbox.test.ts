// Fitting blackbox coefficients (docs/calibration.md "Fit"): the linear forms reproduce the
// simulated latencies, and the fit recovers coefficients from traces simulated with them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { replay } from "../../src/calibration/replay.js";
import { FeatureProbe } from "../../src/calibration/features.js";
import { evaluateExperiment, forms } from "../../src/calibration/fit/evaluate.js";
import { fitCoefficients } from "../../src/calibration/fit/fit.js";
import { BLACKBOX_LAYOUT, layoutParamIndex } from "../../src/calibration/fit/layout.js";
import { NUM_PARAMS } from "../../src/calibration/fit/params.js";
import type { FitExperiment } from "../../src/calibration/experiments.js";
import { F_COMPLETED } from "../../src/core/ledger.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { measuredWith, syntheticTrace } from "./synthetic.js";

/** The bundled entry of Llama-3.1-8B on H100, TP 1 (data/defaults.yaml). */
const START = {
  alpha: [232.46191091038054, 1.752360364195244, 3357.4400353290152],
  beta: [5752.705191348184, 17.25086436834028, 5.999143920128404],
};

const RUN: RunInput = {
  model: "meta-llama/llama-3.1-8b-instruct",
  hardware: "H100",
  tp: 1,
  latencyModel: "blackbox",
  alphaCoeffs: START.alpha,
  betaCoeffs: START.beta,
  seed: 7,
};

const dot = (f: Float64Array, t: Float64Array): number => f.reduce((s, v, j) => s + v * t[j]!, 0);

test("blackbox forms reproduce each simulated TTFT and E2E to the per-step truncation", async () => {
  // α2 is an integer: the engine truncates it once, so its part of the forms is exact.
  const coeffs = { alpha: [1500.5, 2.25, 3000], beta: [6000.3, 17.7, 6.4] };
  const theta = BLACKBOX_LAYOUT.toTheta(coeffs);
  const probe = new FeatureProbe();
  const res = await replay(syntheticTrace(600, 12, 3), { run: RUN, coefficients: coeffs, probe });
  const l = res.sim.run.ledger;
  const t = new Float64Array(NUM_PARAMS);
  const e = new Float64Array(NUM_PARAMS);
  const i = new Float64Array(NUM_PARAMS);
  let worstT = 0;
  let worstE = 0;
  let n = 0;
  for (let k = 0; k < res.rows.length; k++) {
    const seq = res.seqOfRow[k]!;
    assert.ok(seq >= 0 && (l.flags[seq]! & F_COMPLETED) !== 0, `row ${k} completed`);
    forms(BLACKBOX_LAYOUT, probe, seq, l.inputLen[seq]!, l.outputLen[seq]!, t, e, i);
    // Each step (slot 3 counts them) and the queueing delay truncate by less than 1 µs.
    const dt = Math.abs(dot(t, theta) - l.ttft[seq]!);
    const de = Math.abs(dot(e, theta) - l.e2e[seq]!);
    assert.ok(dt <= 1 + t[3]! + 1e-6, `request ${k}: TTFT form off by ${dt} µs over ${t[3]} steps`);
    assert.ok(de <= 1 + e[3]! + 1e-6, `request ${k}: E2E form off by ${de} µs over ${e[3]} steps`);
    worstT = Math.max(worstT, dt / l.ttft[seq]!);
    worstE = Math.max(worstE, de / l.e2e[seq]!);
    n++;
  }
  console.log(`${n} requests: worst relative error TTFT ${worstT.toExponential(2)}, E2E ${worstE.toExponential(2)}`);
  assert.ok(worstT < 1e-3 && worstE < 1e-3);
});

// Measured with 1,200 requests per rate: α0 0.10%, β0 0.09%, β1 0.30%, β2 0.67% off. β2 is the
// least determined: any coefficient change shifts the schedule, a noise floor of about 1% on the
// binned means, and β2·D is a small part of a step unless β2 or the batches are large (with
// β = [7000, 20, 9] it came out 2.8% off).
const TOLERANCE = 0.02;

test("fit recovers blackbox α0, β0, β1, β2 from traces simulated with them", async () => {
  const truth = { alpha: [20000, START.alpha[1]!, START.alpha[2]!], beta: [4000, 15, 30] };
  const experiments: FitExperiment[] = [];
  for (const [k, rate] of [4, 10, 16].entries()) {
    const trace = await measuredWith(syntheticTrace(1200, rate, 11 + k), RUN, truth);
    experiments.push({
      id: `synthetic-${rate}rps`,
      model: RUN.model!,
      run: RUN,
      trace,
      target: { kind: "requests" },
      stages: [],
      role: null,
    });
  }
  // α1 (per prompt token, queueing only) and α2 (per output token, never delaying an event) are
  // nearly collinear with β1 and β0 on one deployment; they stay at their start values.
  const names = ["alpha0", "beta0", "beta1", "beta2"];
  const free = names.map((n) => layoutParamIndex(BLACKBOX_LAYOUT, n, "test"));
  const res = await fitCoefficients({
    experiments,
    start: START,
    free,
    iterations: 20,
    budget: 0,
    lambda: 0,
    evaluate: async (xs, theta) => Promise.all(xs.map((x) => evaluateExperiment(x, theta))),
  });
  const want = BLACKBOX_LAYOUT.toTheta(truth);
  const start = BLACKBOX_LAYOUT.toTheta(START);
  const off = free.map((j) => Math.abs(res.theta[j]! - want[j]!) / want[j]!);
  console.log(names.map((n, k) => `${n}: ${(off[k]! * 100).toFixed(3)}% off`).join(", "));
  free.forEach((j, k) => {
    assert.ok(off[k]! < TOLERANCE, `${names[k]}: fitted ${res.theta[j]}, true ${want[j]}, start ${start[j]}`);
  });
  assert.deepEqual(res.coefficients.alpha.length, 3);
  assert.deepEqual(res.coefficients.beta.length, 3);
  assert.ok(res.objectiveAfter < 0.1 * res.objectiveBefore, `objective ${res.objectiveBefore} → ${res.objectiveAfter}`);
});

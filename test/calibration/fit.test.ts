// The fitter recovers coefficients from traces simulated with them (docs/calibration.md "Fit").

import { test } from "node:test";
import assert from "node:assert/strict";
import { evaluateExperiment } from "../../src/calibration/fit/evaluate.js";
import { fitCoefficients } from "../../src/calibration/fit/fit.js";
import { paramIndex, thetaFromCoefficients, PARAM_NAMES } from "../../src/calibration/fit/params.js";
import type { FitExperiment } from "../../src/calibration/experiments.js";
import { measuredWith, syntheticTrace } from "./synthetic.js";
import type { RunInput } from "../../src/config/runOptions.js";

const BUNDLED = {
  alpha: [15563.199579, 777.3455, 45.907545],
  beta: [
    0.152128, 0.0, 1.36252915, 0.752037, 32.09546717, 4.41684444, 126.024825, 481.8613888, 0.0, 1.94710771, 0.752037,
  ],
};

// Measured with 1,200 requests per rate: α0 0.33%, β1a 0.73%, β2b 0.14% off. With 400 requests
// β1a stayed 3.7% off: the schedule shifts with every coefficient change, which leaves a noise
// floor on the criterion that more requests average out.
const TOLERANCE = 0.02;

test("fit recovers coefficients from traces simulated with them", async () => {
  const truth = {
    alpha: [21000, BUNDLED.alpha[1]!, 60],
    beta: BUNDLED.beta.map((b, i) => (i === 0 ? 0.3 : i === 9 ? 1.5 : b)),
  };
  const run: RunInput = {
    model: "meta-llama/llama-3.1-8b-instruct",
    hardware: "H100",
    tp: 1,
    latencyModel: "trained-physics",
    seed: 7,
  };
  const experiments: FitExperiment[] = [];
  for (const [i, rate] of [4, 10, 16].entries()) {
    const trace = await measuredWith(syntheticTrace(1200, rate, 11 + i), run, truth);
    experiments.push({
      id: `synthetic-${rate}rps`,
      model: run.model!,
      run,
      trace,
      target: { kind: "requests" },
      stages: [],
      role: null,
    });
  }
  // α2 (per output token, never delaying an event), β6 (per request and step) and the per-step
  // constants are nearly collinear on one deployment; these three are what such a trace pins down.
  const freeNames = ["alpha0", "beta1a", "beta2b"];
  const free = freeNames.map((n) => paramIndex(n, "test"));
  const res = await fitCoefficients({
    experiments,
    start: BUNDLED,
    free,
    iterations: 20,
    budget: 0,
    lambda: 0,
    evaluate: async (xs, theta) => Promise.all(xs.map((x) => evaluateExperiment(x, theta))),
  });
  const want = thetaFromCoefficients(truth);
  const start = thetaFromCoefficients(BUNDLED);
  for (const j of free) {
    const rel = Math.abs(res.theta[j]! - want[j]!) / want[j]!;
    console.log(`${PARAM_NAMES[j]}: ${(rel * 100).toFixed(2)}% off`);
    assert.ok(
      rel < TOLERANCE,
      `${PARAM_NAMES[j]}: fitted ${res.theta[j]}, true ${want[j]}, start ${start[j]} (${(rel * 100).toFixed(2)}% off)`,
    );
  }
  assert.ok(res.objectiveAfter < 0.1 * res.objectiveBefore, `objective ${res.objectiveBefore} → ${res.objectiveAfter}`);
});

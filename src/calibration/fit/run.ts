// `fit` as a library call (docs/calibration.md "Fit"): the coefficient fit over measured runs,
// replays spread over worker processes, and the held-out runs evaluated before and after.

import type { Coefficients } from "../../latency/backends/backend.js";
import { BUNDLED_TRAINED_PHYSICS } from "../../util/paths.js";
import { loadCoefficientFile } from "../../latency/coefficientFile.js";
import type { FitExperiment } from "../experiments.js";
import { evaluateExperiment, type ExperimentEval } from "./evaluate.js";
import { fitCoefficients, type FitOptions, type FitResult } from "./fit.js";
import { commonLayout } from "./layout.js";
import { FitPool } from "./pool.js";

export interface FitRunOptions extends Omit<FitOptions, "experiments" | "evaluate"> {
  data: readonly FitExperiment[];
  /** Runs only evaluated, at the start coefficients and at the fitted ones. */
  holdout?: readonly FitExperiment[];
  /** Worker processes (experiments loaded with loadInputs run there; default 1: in this process). */
  jobs?: number;
}

export interface FitOutcome extends FitResult {
  holdoutBefore: ExperimentEval[];
  holdoutAfter: ExperimentEval[];
}

/** Coefficients to start from: a coefficient file, by default the bundled trained-physics one. */
export function startCoefficients(file: string = BUNDLED_TRAINED_PHYSICS, flag = "--start"): Coefficients {
  const sc = loadCoefficientFile(file, flag).trained_physics_coefficients;
  return { alpha: sc.alpha_coeffs, beta: sc.beta_coeffs, extra: sc.extra_terms ?? {} };
}

export async function fit(o: FitRunOptions): Promise<FitOutcome> {
  const holdout = o.holdout ?? [];
  const layout = commonLayout([...o.data, ...holdout].map((x) => x.run));
  const jobs = Math.min(o.jobs ?? 1, Math.max(o.data.length, holdout.length));
  const pool = jobs > 1 ? new FitPool(jobs) : null;
  const log = o.progress ?? (() => undefined);
  let done = 0;
  const t0 = Date.now();
  const evaluate = async (xs: readonly FitExperiment[], theta: ArrayLike<number>): Promise<ExperimentEval[]> => {
    let res: ExperimentEval[];
    if (pool !== null && xs.length > 1) res = await pool.evaluate(xs, theta, () => done++);
    else {
      res = [];
      for (const x of xs) {
        res.push(await evaluateExperiment(x, theta));
        done++;
      }
    }
    log(`  ${done} replays, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return res;
  };
  try {
    const result = await fitCoefficients({ ...o, experiments: o.data, evaluate });
    if (holdout.length === 0) return { ...result, holdoutBefore: [], holdoutAfter: [] };
    log(`evaluating ${holdout.length} held-out experiment(s)`);
    const holdoutBefore = await evaluate(holdout, layout.toTheta(o.start));
    const holdoutAfter = await evaluate(holdout, result.theta);
    return { ...result, holdoutBefore, holdoutAfter };
  } finally {
    await pool?.close();
  }
}

// Worker entry of the fit pool (tinypool, one child process per worker): replays one experiment
// at one parameter vector. Each worker loads the inputs itself, once, from the same values as the
// parent, so a task carries only the experiment's source and θ.

import type { ExperimentSource, FitExperiment } from "../experiments.js";
import { evaluateExperiment, type ExperimentEval } from "./evaluate.js";
import { resolveInput } from "./inputs.js";
import { bindToParent } from "../../experiment/poolChild.js";

export interface FitTask {
  source: ExperimentSource;
  theta: number[];
}

const loaded = new Map<string, FitExperiment[]>();

bindToParent();

export default async function evaluateTask(t: FitTask): Promise<ExperimentEval> {
  const { spec, flag, index, run, seed } = t.source;
  const key = `${flag}\u0000${spec}`;
  let xs = loaded.get(key);
  if (xs === undefined) {
    xs = resolveInput(spec, { run, seed, flag, skipped: [] });
    loaded.set(key, xs);
  }
  const x = xs[index];
  if (x === undefined) throw new Error(`fit worker: ${spec} has no experiment ${index}`);
  return evaluateExperiment(x, t.theta);
}

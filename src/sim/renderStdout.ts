import { renderFitness, renderMetricBlocks, renderTail } from "../metrics/render.js";
import { evaluateFitness, parseFitnessWeights } from "../metrics/fitness.js";
import type { SimulationResult } from "./simulate.js";

/**
 * The exact stdout of `blis run` for a finished simulation, in two parts: what is printed before
 * fitness weights are checked, and the rest. `fitnessError` is set (and `tail` empty) when the
 * weights are invalid: BLIS prints the metrics first, then fails (docs/behavior.md#c15).
 */
export function renderStdout(res: SimulationResult): { head: string; tail: string; fitnessError: Error | null } {
  const head = renderMetricBlocks(res.metrics);
  let tail = "";
  if (res.options.fitnessWeights !== "") {
    try {
      tail += renderFitness(evaluateFitness(res.metrics, parseFitnessWeights(res.options.fitnessWeights)));
    } catch (e) {
      return { head, tail: "", fitnessError: e as Error };
    }
  }
  tail += renderTail(res.metrics, { printFairness: res.options.printFairness, summarizeTrace: res.options.summarizeTrace });
  return { head, tail, fitnessError: null };
}

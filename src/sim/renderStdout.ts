import { renderFitness, renderMetricBlocks, renderTail } from "../metrics/render.js";
import { evaluateFitness, parseFitnessWeights } from "../metrics/fitness.js";
import type { SimulationResult } from "./simulate.js";
import { featureStdout } from "./featureWiring.js";

/**
 * The exact stdout of `blis run` for a finished simulation, in two parts: the metric blocks (the
 * results file is written between them, as in BLIS) and the rest. `simulate` rejects invalid
 * fitness weights before the run (docs/behavior.md#c15); `fitnessError` still reports them for a
 * result built some other way, with `tail` empty.
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
  tail += renderTail(res.metrics, {
    printFairness: res.options.printFairness,
    summarizeTrace: res.options.summarizeTrace,
  });
  // The features' own blocks in registration order: LoRA's adapters (docs/lora.md "Output"),
  // speculative decoding's (docs/speculative.md "Metrics"), the autoscaler's (docs/autoscaling.md "Outputs").
  const { run, metrics } = res;
  tail += featureStdout(run.features, {
    users: run.ledger,
    cluster: metrics.cluster,
    end: metrics.fitnessInputs.simEnded,
  });
  return { head, tail, fitnessError: null };
}

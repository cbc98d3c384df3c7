import { renderFitness, renderMetricBlocks, renderTail } from "../metrics/render.js";
import { evaluateFitness, parseFitnessWeights } from "../metrics/fitness.js";
import type { SimulationResult } from "./simulate.js";
import { featureStdout } from "./featureWiring.js";
import { renderAdapters } from "../metrics/adapters.js";
import { renderSpeculative } from "../metrics/speculative.js";

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
  // Extension: LoRA runs with adapter activity (docs/lora.md "Output").
  const adapters = res.metrics.cluster.adapters;
  if (adapters !== undefined) tail += renderAdapters(adapters);
  // Extension: speculative decoding (docs/speculative.md "Metrics").
  const spec = res.metrics.cluster.speculative;
  if (spec !== undefined)
    tail += renderSpeculative(spec, { mean: res.metrics.cluster.itl_mean_ms, p99: res.metrics.cluster.itl_p99_ms });
  // The features' own blocks (the autoscaler's: docs/autoscaling.md "Outputs").
  const { run, metrics } = res;
  tail += featureStdout(run.features, {
    users: run.ledger,
    cluster: metrics.cluster,
    end: metrics.fitnessInputs.simEnded,
  });
  return { head, tail, fitnessError: null };
}

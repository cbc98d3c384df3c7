// Replays of a fit spread over worker processes (`fit --jobs`). Results come back in the order of
// the experiments, so a fit's outcome does not depend on the number of workers.

import { fileURLToPath } from "node:url";
import type Tinypool from "tinypool";
import { processPool } from "../../experiment/pool.js";
import type { FitExperiment } from "../experiments.js";
import { evaluateExperiment, type ExperimentEval } from "./evaluate.js";
import type { FitTask } from "./worker.js";

const WORKER_FILE = fileURLToPath(new URL("./worker.js", import.meta.url));

export class FitPool {
  private readonly pool: Tinypool;

  constructor(readonly jobs: number) {
    // Processes, not threads: two simulations in one process slow each other down (see
    // experiment/pool.ts).
    this.pool = processPool(WORKER_FILE, jobs);
  }

  /** Evaluates every experiment at θ; those without a source (built in memory) run here. */
  async evaluate(
    xs: readonly FitExperiment[],
    theta: ArrayLike<number>,
    onDone: () => void,
  ): Promise<ExperimentEval[]> {
    return Promise.all(
      xs.map(async (x) => {
        const r =
          x.source === undefined
            ? await evaluateExperiment(x, theta)
            : ((await this.pool.run({
                source: x.source,
                theta: Array.from(theta),
              } satisfies FitTask)) as ExperimentEval);
        onDone();
        return r;
      }),
    );
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

// Run options checked as `blis run` checks them, without simulating: callers that start many runs
// (optimize) refuse inputs every run would fail on before starting any.

import type { RunInput } from "../config/runOptions.js";
import { ConstructionError, UserError } from "../util/errors.js";
import { Logger } from "../util/log.js";
import { simulate } from "./simulate.js";

/** Leaves simulate() once its checks passed. */
class ChecksPassed extends Error {}

const stop = (): never => {
  throw new ChecksPassed();
};

/**
 * The error `blis run` would stop with for these options before simulating, or null when they pass.
 * Plugin code never runs here: with --plugin the checks end where the plugins would load, since a
 * plugin that never returns must stay inside a worker that can be ended. Internal errors give
 * null too: the run itself reports them.
 */
export async function runInputProblem(input: RunInput): Promise<UserError | ConstructionError | null> {
  try {
    await simulate(input, {
      // The runs themselves show the warnings.
      logger: new Logger("panic", () => undefined),
      beforePlugins: (o) => {
        if (o.plugin.length > 0) stop();
      },
      onStart: stop,
    });
  } catch (e) {
    if (e instanceof UserError || e instanceof ConstructionError) return e;
  }
  return null;
}

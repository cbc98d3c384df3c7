// Checks of a search space before its first evaluation: run options that no run could start with
// (an invalid base flag or base workload spec) are refused with the run's own error, before any
// simulation runs and before anything is written under --out.

import type { RunInput } from "../config/runOptions.js";
import { runInputProblem } from "../sim/runInputProblem.js";
import { inputFor } from "./evaluate.js";
import { SpaceError } from "./errors.js";
import { initialDesign } from "./grid.js";
import type { OptimizeSpace } from "./space.js";

/**
 * Throws SpaceError when the baseline cannot run, or when no point of the initial design can: a
 * point that fails alone is the search's to learn from, but when every one fails the fault is in
 * what they share. The message blames `base` when the base options fail with the same error.
 */
export async function preflight(space: OptimizeSpace): Promise<void> {
  const blame = async (what: string, why: string): Promise<never> => {
    const inBase = (await problem(space.base)) === why;
    throw new SpaceError(`${space.file}: ${inBase ? "base" : what}: ${why}`);
  };
  if (space.baseline !== null) {
    const why = await problem(space.baseline);
    if (why !== null) await blame("baseline", why);
  }
  let first: string | null = null;
  for (const pt of initialDesign(space)) {
    const input = inputFor(space, pt);
    // A point that cannot be run at all (every scorer weight 0) is recorded as such by the search.
    if (typeof input === "string") continue;
    const why = await problem(input);
    if (why === null) return;
    first ??= why;
  }
  if (first !== null) await blame("no point of the initial design can run", first);
}

async function problem(input: RunInput): Promise<string | null> {
  return (await runInputProblem(input))?.message ?? null;
}

// The workload options several sources read (docs/behavior.md "Sources and precedence"): --workload
// names a preset, distribution mode or a CSV trace; --rate, --num-requests and --timeout mean what
// they say in every source that takes them. Their flags stay in the run's flag table.

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import { anyNumber } from "../../util/policyRegistry.js";

export const sharedWorkloadShape = {
  workload: z.string().default("distribution"),
  rate: anyNumber.default(1.0),
  /** Client deadline, s after arrival; negative = none (0 is an error). */
  timeout: z.number().int().default(-1),
  numRequests: z.number().int().default(100),
};

/** `--workload` names distribution mode (or is left empty). */
export function isDistributionMode(workload: string): boolean {
  return workload === "distribution" || workload === "";
}

/** `--timeout` (docs/behavior.md "Client timeouts"): seconds, negative = no deadlines, 0 is an error. */
export function checkTimeoutFlag(timeout: number): void {
  if (timeout === 0) throw new UserError("--timeout must be positive (seconds) or negative to disable; got 0");
}

/** Rethrows a UserError with `prefix` before its message (what failed to load); other errors unchanged. */
export function prefixed(prefix: string, e: unknown): never {
  if (e instanceof UserError) throw new UserError(`${prefix}${e.message}`);
  throw e;
}

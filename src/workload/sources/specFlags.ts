// `run --workload-spec FILE` with workload flags (docs/behavior.md "Sources and precedence"): a flag
// given on the command line replaces the spec's value; the values it does not replace are checked.

import { UserError } from "../../util/errors.js";
import { specPositions } from "../spec/load.js";
import type { WorkloadSpec } from "../spec/types.js";
import { checkSpecBounds } from "../spec/validate.js";
import { checkRateFlag } from "./distribution.js";

/** The flags that were given explicitly (absent = not on the command line). */
export interface SpecFlags {
  rate?: number;
  numRequests?: number;
  horizon?: number;
}

/**
 * Checks the spec's cap and horizon unless replaced, and applies `--rate` to `aggregate_rate`
 * (docs/behavior.md#w24); the clients' rate fractions are unchanged. Mutates `spec`.
 */
export function applySpecFlags(spec: WorkloadSpec, flags: SpecFlags): void {
  checkSpecBounds(
    spec,
    { numRequests: flags.numRequests !== undefined, horizon: flags.horizon !== undefined },
    specPositions(spec),
  );
  if (flags.rate === undefined) return;
  checkRateFlag(flags.rate);
  // Generation replaces aggregate_rate by the sum of the stage rates: there is nothing to replace.
  if (spec.clients.length === 0 && spec.inference_perf !== undefined) {
    throw new UserError(
      "--rate cannot be used with an inference_perf workload spec: its stages set the rate; change the stage rates in the file",
    );
  }
  if (spec.mooncake_trace !== undefined) {
    throw new UserError(
      "--rate cannot be used with a mooncake_trace workload spec: the trace sets every arrival; replay faster or slower with its time_scale",
    );
  }
  spec.aggregate_rate = flags.rate;
}

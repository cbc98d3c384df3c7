// `blis compose` (docs/behavior.md "Traces, convert and compose"): concatenate client lists, sum
// the aggregate rates and rescale each client's fraction by its spec's share. Seeds, caps,
// horizons, cohorts and compact formats of the inputs are dropped (docs/behavior.md#w13).

import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { fmtF } from "./util/format.js";
import { positionSuffix } from "./spec/decode.js";
import { loadWorkloadSpec, specPositions } from "./spec/load.js";
import { makeSpec, type WorkloadSpec } from "./spec/types.js";
import { findValidationFailure } from "./spec/validate.js";
import { checkNumRequestsFlag } from "./sources/distribution.js";
import { assertGeneratedSpecValid } from "./convert.js";

export interface ComposeOptions {
  /** How each input is named in errors (its file); default `input <n>`. */
  names?: readonly string[];
  /** Written as the output's num_requests (inputs' caps are dropped). */
  numRequests?: number;
}

/**
 * An input must be composable on its own: a positive rate and valid clients. Checked per input so
 * that the error names the file and the key, not the merged output (docs/behavior.md#w13).
 */
function checkInput(s: WorkloadSpec, name: string): void {
  const at = (path: string): string => positionSuffix(specPositions(s), path);
  if (!Number.isFinite(s.aggregate_rate)) {
    throw new UserError(
      `compose: ${name}: aggregate_rate must be a finite number, got ${fmtF(s.aggregate_rate)}${at("aggregate_rate")}`,
    );
  }
  if (s.aggregate_rate <= 0) {
    throw new UserError(
      `compose: ${name}: aggregate_rate must be positive, got ${fmtF(s.aggregate_rate)}${at("aggregate_rate")}`,
    );
  }
  if (s.clients.length === 0) {
    throw new UserError(
      `compose: ${name}: no clients to compose (cohorts, servegen_data and inference_perf are not carried over)`,
    );
  }
  // Only what compose keeps is validated: the clients (and the rate and version they come with).
  const kept = makeSpec({
    version: s.version,
    category: s.category,
    aggregate_rate: s.aggregate_rate,
    clients: s.clients,
  });
  const f = findValidationFailure(kept);
  if (f !== null) throw new UserError(`compose: ${name}: ${f.message}${f.path === "" ? "" : at(f.path)}`);
}

/** Merges already-loaded specs after checking each one; validates the result. */
export function composeSpecs(specs: readonly WorkloadSpec[], opts: ComposeOptions = {}): WorkloadSpec {
  if (specs.length === 0) throw new UserError("at least one --from flag is required");
  specs.forEach((s, i) => checkInput(s, opts.names?.[i] ?? `input ${i + 1}`));
  let total = 0;
  for (const s of specs) total += s.aggregate_rate;
  if (!Number.isFinite(total)) throw new UserError(`compose: total aggregate rate is not finite: ${fmtF(total)}`);
  if (total <= 0) throw new UserError(`compose: total aggregate rate must be positive, got ${fmtF(total)}`);
  const clients = specs.flatMap((s) =>
    s.clients.map((c) => ({ ...structuredClone(c), rate_fraction: c.rate_fraction * (s.aggregate_rate / total) })),
  );
  const out = makeSpec({ version: "2", category: specs[0]!.category, aggregate_rate: total, clients });
  if (opts.numRequests !== undefined) out.num_requests = opts.numRequests;
  assertGeneratedSpecValid(out);
  return out;
}

/** `blis compose --from A --from B … [--num-requests N]`. */
export function composeFiles(paths: readonly string[], logger?: Logger, numRequests?: number): WorkloadSpec {
  if (paths.length === 0) throw new UserError("at least one --from flag is required");
  if (numRequests !== undefined) checkNumRequestsFlag(numRequests);
  const specs = paths.map((p) => {
    try {
      return loadWorkloadSpec(p, logger === undefined ? {} : { logger });
    } catch (err) {
      if (err instanceof UserError) throw new UserError(`compose: ${p}: ${err.message}`);
      throw err;
    }
  });
  return composeSpecs(specs, { names: paths, ...(numRequests === undefined ? {} : { numRequests }) });
}

// `blis compose` (docs/behavior.md "Traces, convert and compose"): concatenate client lists, sum
// the aggregate rates and rescale each client's fraction by its spec's share. Seeds, caps,
// horizons, cohorts and compact formats of the inputs are dropped (docs/behavior.md#w13).

import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { fmtF } from "./util/format.js";
import { loadWorkloadSpec } from "./spec/load.js";
import { makeSpec, type WorkloadSpec } from "./spec/types.js";
import { assertGeneratedSpecValid } from "./convert.js";

/** Merges already-loaded specs (not validated individually); validates the result. */
export function composeSpecs(specs: readonly WorkloadSpec[]): WorkloadSpec {
  if (specs.length === 0) throw new UserError("at least one --from flag is required");
  let total = 0;
  for (const s of specs) total += s.aggregate_rate;
  if (!Number.isFinite(total)) throw new UserError(`compose: total aggregate rate is not finite: ${fmtF(total)}`);
  if (total <= 0) throw new UserError(`compose: total aggregate rate must be positive, got ${fmtF(total)}`);
  const clients = specs.flatMap((s) =>
    s.clients.map((c) => ({ ...structuredClone(c), rate_fraction: c.rate_fraction * (s.aggregate_rate / total) })),
  );
  const out = makeSpec({ version: "2", category: specs[0]!.category, aggregate_rate: total, clients });
  assertGeneratedSpecValid(out);
  return out;
}

/** `blis compose --from A --from B …`. */
export function composeFiles(paths: readonly string[], logger?: Logger): WorkloadSpec {
  if (paths.length === 0) throw new UserError("at least one --from flag is required");
  return composeSpecs(paths.map((p) => loadWorkloadSpec(p, logger === undefined ? {} : { logger })));
}

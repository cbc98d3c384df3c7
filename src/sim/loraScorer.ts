// `--lora-scorer-weight` (docs/lora.md "Routing"): a routing-profile flag of the LoRA group.

import type { RunOptions } from "../config/runOptions.js";
import type { Logger } from "../util/log.js";
import { UserError } from "../util/errors.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";

/**
 * `--lora-scorer-weight W` (docs/lora.md "Routing"): appends `lora-affinity:W` to the weighted
 * profile in effect; a warning with any other routing policy.
 */
export function withLoraScorer(
  o: Readonly<RunOptions>,
  specs: readonly ScorerSpec[],
  log: Logger,
): readonly ScorerSpec[] {
  const w = o.loraScorerWeight;
  if (w === undefined) return specs;
  if (!(Number.isFinite(w) && w > 0)) throw new UserError(`--lora-scorer-weight must be a finite value > 0, got ${w}`);
  if (o.routingPolicy !== "weighted") {
    log.warn(
      `--lora-scorer-weight has no effect when routing policy is "${o.routingPolicy}" (only applies to 'weighted')`,
    );
    return specs;
  }
  if (specs.some((s) => s.name === "lora-affinity")) {
    throw new UserError(
      "--lora-scorer-weight: lora-affinity is already in the routing scorer profile; give its weight there instead",
    );
  }
  return [...specs, { name: "lora-affinity", weight: w }];
}

// Which features of a run cannot run together (docs/architecture.md "Cluster extensions"): each
// feature declares what it cannot run with and the refusal; this is the one place that checks.

import { UserError } from "../util/errors.js";
import type { FeatureDescriptor } from "./extension.js";

/**
 * Refuses the first declared incompatibility among the `active` features: features in the given
 * order, each one's incompatibilities in its declared order.
 */
export function refuseIncompatible(active: readonly FeatureDescriptor[]): void {
  const names = new Set(active.map((f) => f.name));
  for (const f of active) {
    for (const inc of f.incompatible ?? []) if (names.has(inc.with)) throw new UserError(inc.message);
  }
}

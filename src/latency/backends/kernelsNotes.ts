// The kernels model's one-line notes about queries that leave the measured grids
// (docs/latency.md "Interpolation and extrapolation"), reported once per run.

import type { Logger } from "../../util/log.js";

import type { Extrapolations } from "../kernels/gemm.js";

/**
 * Shapes outside the grids are reported when the model is built; a curve's run beyond its last
 * point when a step first needs it (deterministic: stderr only, once per dimension).
 */
export function extrapolationNotes(log: Logger, where: string): Extrapolations {
  const said = new Set<string>();
  const say = (d: string): void => {
    if (said.has(d)) return;
    said.add(d);
    log.warn(`kernels (${where}): extrapolated: ${d}`);
  };
  return { add: say, lazy: (d) => () => say(d) };
}

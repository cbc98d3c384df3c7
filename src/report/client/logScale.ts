// Logarithmic axes: bounds widened to cover the data and the whiskers drawn against the axis,
// then snapped to tick values, and ticks at 1-2-5 × 10^k (only powers of ten on wide ranges)
// instead of Chart.js's 1…9 × 10^k thinned by auto-skip, which leaves irregular labels.

import type { Scale } from "chart.js";
import { logAxis } from "../chartSpec.js";
import { extrasOf } from "./datasets.js";

/** Most ticks on a logarithmic axis. */
export const LOG_MAX_TICKS = 8;

/** The positive whisker ends of the visible datasets drawn against `scale`, or null. */
function whiskerRange(scale: Scale): [number, number] | null {
  const chart = scale.chart;
  let lo = Infinity;
  let hi = -Infinity;
  chart.data.datasets.forEach((ds, i) => {
    const spread = extrasOf(ds).blisWhiskers;
    if (!spread || !chart.isDatasetVisible(i)) return;
    const meta = chart.getDatasetMeta(i);
    if ((scale.axis === "x" ? meta.xAxisID : meta.yAxisID) !== scale.id) return;
    for (const w of spread) {
      if (!w) continue;
      if (w[0] > 0) lo = Math.min(lo, w[0]);
      if (w[1] > 0) hi = Math.max(hi, w[1]);
    }
  });
  return lo <= hi ? [lo, hi] : null;
}

/** The options of a logarithmic axis; `fixed` are bounds the chart sets and that are kept. */
export function logScaleOptions(fixed: { min?: number; max?: number }): {
  bounds: "data";
  afterDataLimits: (scale: Scale) => void;
  afterBuildTicks: (scale: Scale) => void;
} {
  return {
    // The bounds set below stay: Chart.js would otherwise move them to its own first and last tick.
    bounds: "data",
    afterDataLimits(scale) {
      let lo = scale.min;
      let hi = scale.max;
      const w = whiskerRange(scale);
      if (w !== null) {
        lo = Math.min(lo, w[0]);
        hi = Math.max(hi, w[1]);
      }
      if (!(lo > 0 && hi > 0 && Number.isFinite(lo) && Number.isFinite(hi))) return;
      const axis = logAxis(lo, hi, LOG_MAX_TICKS, fixed);
      scale.min = axis.min;
      scale.max = axis.max;
    },
    afterBuildTicks(scale) {
      if (!(scale.min > 0 && scale.max > scale.min)) return;
      const { ticks } = logAxis(scale.min, scale.max, LOG_MAX_TICKS, { min: scale.min, max: scale.max });
      // Fewer than two nice values inside fixed bounds: Chart.js's ticks say more.
      if (ticks.length >= 2) scale.ticks = ticks.map((value) => ({ value }));
    },
  };
}

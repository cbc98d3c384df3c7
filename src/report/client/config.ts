// The Chart.js configuration of one chart description.

import type { ChartConfiguration } from "chart.js";
import type { ChartSpec } from "../chartSpec.js";
import { buildDatasets, extrasOf, type ReportChartType, type ReportDatum } from "./datasets.js";
import { buildScales } from "./scales.js";
import type { Theme } from "./theme.js";
import { hoverOf, tooltipOptions } from "./tooltip.js";

/** A category label; long ones are split over two lines. */
export type CategoryLabel = string | string[];

export type ReportChartConfig = ChartConfiguration<ReportChartType, ReportDatum[], CategoryLabel>;

/** Splits a long label before its parenthesis or at its commas. */
function splitLabel(s: string): CategoryLabel {
  if (s.length <= 18) return s;
  const p = s.indexOf(" (");
  if (p > 0) return [s.slice(0, p), s.slice(p + 1)];
  if (s.indexOf(",") > 0) return s.split(",");
  return s;
}

export function chartConfig(spec: ChartSpec, theme: Theme): ReportChartConfig {
  const isBar = spec.kind === "bar";
  const isScatter = spec.kind === "scatter";
  const datasets = buildDatasets(spec);
  const legendShown = spec.legend !== undefined ? spec.legend : datasets.filter((d) => !d.blisNoLegend).length > 1;
  return {
    type: spec.kind,
    data: { labels: spec.labels ? spec.labels.map(splitLabel) : undefined, datasets },
    options: {
      indexAxis: spec.horizontal ? "y" : "x",
      // Lines and scatters carry ready {x, y} points; line data (time series, CDFs) are sorted by x.
      parsing: isBar ? undefined : false,
      normalized: !isBar && !isScatter,
      interaction: hoverOf(spec),
      scales: buildScales(spec, theme),
      plugins: {
        legend: {
          display: legendShown,
          position: "top",
          align: "start",
          labels: {
            boxWidth: 14,
            boxHeight: 8,
            padding: 10,
            color: theme.ink,
            filter: (item, data) => {
              const ds = item.datasetIndex === undefined ? undefined : data.datasets[item.datasetIndex];
              return ds === undefined || !extrasOf(ds).blisNoLegend;
            },
          },
        },
        tooltip: tooltipOptions(spec),
        blisRefLines: { lines: spec.refLines || [] },
      },
    },
  };
}

// Hover behaviour and tooltip text: exact values with units, the seed range of a bar, and the
// name of a scatter point.

import type { TooltipItem } from "chart.js";
import type { ChartSpec } from "../chartSpec.js";
import { extrasOf, type ReportChartType } from "./datasets.js";
import { valueText } from "./format.js";

/** Which points a hover picks (shared by the tooltip and the chart's interaction options). */
export interface Hover {
  mode: "index" | "nearest";
  intersect: boolean;
  axis: "x" | "y" | "xy";
}

export function hoverOf(spec: ChartSpec): Hover {
  const isBar = spec.kind === "bar";
  const isScatter = spec.kind === "scatter";
  return {
    mode: spec.tooltip === "index" ? "index" : "nearest",
    intersect: isBar || isScatter,
    axis: isScatter ? "xy" : spec.horizontal ? "y" : "x",
  };
}

type Item = TooltipItem<ReportChartType>;

function title(spec: ChartSpec, items: Item[]): string {
  if (!items.length) return "";
  const it = items[0]!;
  if (spec.kind === "bar") {
    // Long category labels are split over two lines (arrays).
    const label: string | string[] = it.label;
    return Array.isArray(label) ? label.join(",") : label;
  }
  if (spec.kind === "scatter") return "";
  return spec.xLabel.replace(/ \(.*\)$/, "") + ": " + valueText(it.parsed.x, spec.xPercent, spec.xUnit);
}

function label(spec: ChartSpec, it: Item): string[] {
  const ds = it.dataset;
  const { blisNotes: notes, blisWhiskers: whiskers } = extrasOf(ds);
  const note = notes ? notes[it.dataIndex] : null;
  if (spec.kind === "scatter") {
    return [
      note ? note : String(ds.label),
      spec.xLabel + ": " + valueText(it.parsed.x, spec.xPercent, spec.xUnit),
      spec.yLabel + ": " + valueText(it.parsed.y, spec.yPercent, spec.yUnit),
    ];
  }
  const v = spec.horizontal ? it.parsed.x : it.parsed.y;
  const lines = [ds.label + ": " + valueText(v, spec.yPercent, spec.yUnit)];
  const w = whiskers ? whiskers[it.dataIndex] : null;
  if (w)
    lines.push(
      "  seeds: min " +
        valueText(w[0], spec.yPercent, spec.yUnit) +
        ", max " +
        valueText(w[1], spec.yPercent, spec.yUnit),
    );
  if (note) lines.push("  " + note);
  return lines;
}

export interface TooltipSettings extends Hover {
  callbacks: {
    title: (items: Item[]) => string;
    label: (it: Item) => string[];
  };
}

export function tooltipOptions(spec: ChartSpec): TooltipSettings {
  return {
    ...hoverOf(spec),
    callbacks: {
      title: (items: Item[]) => title(spec, items),
      label: (it: Item) => label(spec, it),
    },
  };
}

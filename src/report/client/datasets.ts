// Chart.js datasets from the report's dataset descriptions (chartSpec.ts).

import type { ChartDataset } from "chart.js";
import type { ChartSpec, DatasetSpec } from "../chartSpec.js";

/** The page's own fields on each dataset, read by its plugins, legend filter and tooltips. */
export interface DatasetExtras {
  blisNoLegend: boolean;
  blisNotes: (string | null)[] | null;
  blisPointLabels: (string | null)[] | null;
  blisWhiskers: ([number, number] | null)[] | null;
}

export type ReportChartType = "bar" | "line" | "scatter";

/** A bar: its length, a floating [from, to] pair, or nothing. */
export type BarDatum = number | [number, number] | null;
/** A point of a line or scatter dataset; y null breaks the line. */
export interface PointDatum {
  x: number;
  y: number | null;
}

export type ReportDatum = BarDatum | PointDatum;
/** A dataset of any of the page's chart types (mixed charts: a line on a scatter), with the page's fields. */
export type ReportDataset = ChartDataset<ReportChartType, ReportDatum[]> & DatasetExtras;

/** The page's fields of a dataset: every dataset on the page is made by buildDatasets. */
export function extrasOf(ds: ChartDataset): DatasetExtras {
  return ds as ChartDataset & DatasetExtras;
}

function extras(d: DatasetSpec): DatasetExtras {
  return {
    blisNoLegend: !!d.noLegend,
    blisNotes: d.notes || null,
    blisPointLabels: d.pointLabels || null,
    blisWhiskers: d.whiskers || null,
  };
}

function barDataset(spec: ChartSpec, d: DatasetSpec): ReportDataset {
  const base = d.base;
  return {
    type: "bar",
    label: d.label,
    borderColor: d.color,
    backgroundColor: d.fillColor || d.color,
    hidden: !!d.hidden,
    ...extras(d),
    ...(d.order !== undefined ? { order: d.order } : {}),
    ...(d.rightAxis ? { yAxisID: "y2" } : {}),
    data: base === undefined ? d.y : d.y.map((v) => (v === null ? null : [base, v])),
    skipNull: true,
    borderWidth: 0,
    ...(spec.stacked
      ? { stack: d.stack || "s", barPercentage: 1.0, categoryPercentage: 0.96 }
      : { barPercentage: 0.9, categoryPercentage: 0.8, maxBarThickness: 56 }),
  };
}

function pointDataset(spec: ChartSpec, d: DatasetSpec, type: "line" | "scatter"): ReportDataset {
  const xs = d.x || spec.x || [];
  const pointRadius = d.radius !== undefined ? d.radius : type === "scatter" ? 4 : 0;
  const common = {
    label: d.label,
    borderColor: d.color,
    hidden: !!d.hidden,
    ...extras(d),
    ...(d.order !== undefined ? { order: d.order } : {}),
    ...(d.rightAxis ? { yAxisID: "y2" } : {}),
    // Without x values Chart.js places points by index on the category axis.
    data: d.y.map((y, i) => ({ x: xs[i] as number, y })),
    ...(d.dash ? { borderDash: d.dash } : {}),
    pointRadius,
    pointHoverRadius: Math.max(pointRadius + 2, 3),
    pointHitRadius: 6,
    ...(d.pointStyle ? { pointStyle: d.pointStyle } : {}),
  };
  if (type === "scatter") {
    return {
      type,
      ...common,
      backgroundColor: d.fillColor || d.color,
      borderWidth: d.width !== undefined ? d.width : 1.25,
      showLine: false,
    };
  }
  // A line: straight segments between its points, broken at gaps, in one colour.
  return {
    type,
    ...common,
    backgroundColor: d.color,
    borderWidth: d.width !== undefined ? d.width : 1.5,
    showLine: true,
    fill: false,
    tension: 0,
    spanGaps: false,
  };
}

export function buildDatasets(spec: ChartSpec): ReportDataset[] {
  return spec.datasets.map((d) => {
    const type = d.type || (spec.kind === "bar" ? "bar" : spec.kind === "scatter" ? "scatter" : "line");
    return type === "bar" ? barDataset(spec, d) : pointDataset(spec, d, type);
  });
}

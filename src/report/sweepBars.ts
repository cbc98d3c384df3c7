// One bar chart per tabulated metric of a sweep: bars grouped along the plan's axes, with the
// spread over seeds as whiskers.

import type { SweepReport } from "../experiment/report.js";
import { paletteColor, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { higherIsBetter, metricLabel, metricUnit } from "./metricInfo.js";
import type { SweepReportData } from "./sweepData.js";
import { perSeed, stat, wantsLog } from "./sweepValues.js";

export interface Layout {
  /** Bar groups (x axis). */
  categories: string[];
  /** Bars within a group (legend entries). */
  series: string[];
  /** Title of the series legend (the axis they vary), "" for a single series. */
  seriesAxis: string;
  /** Title of the category axis. */
  xTitle: string;
  /** config label → [category index, series index]. */
  place: Map<string, [number, number]>;
}

/** Axis coordinates of each configuration when the configurations form the plan's grid. */
function gridCoords(r: SweepReport): number[][] | null {
  const axes = r.axes;
  if (axes.length === 0) return null;
  const total = axes.reduce((p, a) => p * a.values.length, 1);
  if (total !== r.configs.length) return null;
  const out: number[][] = [];
  for (let c = 0; c < total; c++) {
    const idx = new Array<number>(axes.length);
    let rem = c;
    for (let k = axes.length - 1; k >= 0; k--) {
      idx[k] = rem % axes[k]!.values.length;
      rem = Math.floor(rem / axes[k]!.values.length);
    }
    const label = axes.map((a, k) => `${a.name}=${a.values[idx[k]!]}`).join(",");
    if (label !== r.configs[c]) return null;
    out.push(idx);
  }
  return out;
}

/** Groups bars by all axes but the one with the fewest values, which becomes the legend. */
export function layoutOf(r: SweepReport): Layout {
  const coords = gridCoords(r);
  const place = new Map<string, [number, number]>();
  if (coords === null || r.axes.length === 1) {
    r.configs.forEach((c, i) => place.set(c, [i, 0]));
    // One axis: its values label the bars and its name titles the axis.
    const categories = coords !== null ? coords.map((k) => r.axes[0]!.values[k[0]!]!) : [...r.configs];
    return {
      categories,
      series: ["mean over seeds"],
      seriesAxis: "",
      xTitle: coords !== null ? r.axes[0]!.name : "configuration",
      place,
    };
  }
  let s = r.axes.length - 1;
  r.axes.forEach((a, k) => {
    if (a.values.length < r.axes[s]!.values.length) s = k;
  });
  const others = r.axes.map((_, k) => k).filter((k) => k !== s);
  const categories: string[] = [];
  const catIndex = new Map<string, number>();
  r.configs.forEach((c, i) => {
    const key =
      others.length === 1
        ? r.axes[others[0]!]!.values[coords[i]![others[0]!]!]!
        : others.map((k) => `${r.axes[k]!.name}=${r.axes[k]!.values[coords[i]![k]!]}`).join(",");
    let ci = catIndex.get(key);
    if (ci === undefined) {
      ci = categories.length;
      categories.push(key);
      catIndex.set(key, ci);
    }
    place.set(c, [ci, coords[i]![s]!]);
  });
  const ax = r.axes[s]!;
  return {
    categories,
    series: ax.values.map((v) => `${ax.name}=${v}`),
    seriesAxis: ax.name,
    xTitle: others.map((k) => r.axes[k]!.name).join(", "),
    place,
  };
}

/** The bar chart of one metric, or why there is none. */
export function metricChart(d: SweepReportData, layout: Layout, metric: string): string | ChartSpec {
  const r = d.report;
  const values = perSeed(d, metric);
  const ys: (number | null)[][] = layout.series.map(() => layout.categories.map(() => null));
  const ws: ([number, number] | null)[][] = layout.series.map(() => layout.categories.map(() => null));
  const notes: (string | null)[][] = layout.series.map(() => layout.categories.map(() => null));
  const all: number[] = [];
  for (const c of r.configs) {
    const [ci, si] = layout.place.get(c)!;
    const s = stat(values.get(c) ?? []);
    if (s === null) continue;
    ys[si]![ci] = s.mean;
    ws[si]![ci] = [s.min, s.max];
    notes[si]![ci] = `${s.n}/${r.seeds.length} seeds`;
    all.push(s.min, s.max);
  }
  if (all.length === 0) return `No valid value of ${metric} in any configuration.`;
  const log = wantsLog(all);
  const ds: DatasetSpec[] = layout.series.map((name, i) => ({
    label: name,
    color: paletteColor(i),
    y: ys[i]!,
    whiskers: r.seeds.length > 1 ? ws[i]! : undefined,
    notes: notes[i]!,
  }));
  const better = higherIsBetter(metric) ? "higher is better" : "lower is better";
  return {
    id: `bars-${metric}`,
    kind: "bar",
    title: metric,
    note: `Mean over seeds${r.seeds.length > 1 ? "; whiskers: min and max over seeds" : ""}; ${better}${log ? "; logarithmic axis" : ""}.`,
    xLabel: layout.xTitle,
    yLabel: metricLabel(metric),
    labels: layout.categories,
    datasets: ds,
    ...(log ? { yScale: "logarithmic" as const } : { yMin: 0 }),
    yUnit: metricUnit(metric),
    legend: layout.series.length > 1,
    allLabels: true,
  };
}

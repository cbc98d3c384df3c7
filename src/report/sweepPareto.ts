// The Pareto section of a sweep report: configurations as points of two metrics, the
// non-dominated ones labelled and joined, and a table of both metrics. Configurations are compared
// only within a group of equal load-axis values (sweepGroups.ts): one front per load level.

import { MUTED_COLOR, fmtShort, paddedRange, paletteColor, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { emptyNote, esc, table, type Cell, type ChartSet } from "./html.js";
import { higherIsBetter, metricLabel, metricUnit } from "./metricInfo.js";
import type { SweepReportData } from "./sweepData.js";
import { loadAxesByName, paretoGroupOf } from "./sweepGroups.js";
import { perSeed, stat, wantsLog, type Stat } from "./sweepValues.js";

export interface ParetoCell {
  config: string;
  /** The configuration's load-axis values ("rate=100"); "" when the sweep has no load axis. */
  group: string;
  x: Stat;
  y: Stat;
  front: boolean;
}

/** The load axes a report groups its Pareto fronts by. */
export function paretoWithin(d: SweepReportData): string[] {
  const names = d.report.axes.map((a) => a.name);
  return (d.paretoWithin ?? loadAxesByName(names)).filter((n) => names.includes(n));
}

/**
 * Cells with both metrics, each marked when no other cell of its group is as good on both and
 * better on one.
 */
export function paretoCells(d: SweepReportData): ParetoCell[] {
  const [mx, my] = d.pareto;
  const xs = perSeed(d, mx);
  const ys = perSeed(d, my);
  const groupOf = paretoGroupOf(d.report.configs, d.report.axes, paretoWithin(d));
  const cells: ParetoCell[] = [];
  for (const c of d.report.configs) {
    const x = stat(xs.get(c) ?? []);
    const y = stat(ys.get(c) ?? []);
    if (x !== null && y !== null) cells.push({ config: c, group: groupOf.get(c) ?? "", x, y, front: false });
  }
  const hx = higherIsBetter(mx) ? 1 : -1;
  const hy = higherIsBetter(my) ? 1 : -1;
  for (const a of cells) {
    a.front = !cells.some((b) => {
      if (b === a || b.group !== a.group) return false;
      const gx = hx * (b.x.mean - a.x.mean);
      const gy = hy * (b.y.mean - a.y.mean);
      return gx >= 0 && gy >= 0 && (gx > 0 || gy > 0);
    });
  }
  return cells;
}

/** What the plot shows, which direction of each metric is better, and what a front compares. */
function paretoLead(mx: string, my: string, within: string[]): string {
  const dir = (m: string): string => (higherIsBetter(m) ? "higher" : "lower");
  const groups =
    within.length > 0
      ? `Fronts are drawn per value of the load ${within.length > 1 ? "axes" : "axis"} ${within.map((a) => `<code>${esc(a)}</code>`).join(", ")}: a configuration is compared only with those at the same load, since a lower load is a condition, not a better configuration. `
      : "";
  return (
    `Each point is one configuration (mean over seeds) of <code>${esc(mx)}</code> (x, ${dir(mx)} is better) against <code>${esc(my)}</code> (y, ${dir(my)} is better). ` +
    `Non-dominated configurations — no other is at least as good on both and better on one — are labelled and joined by the dashed front. ` +
    groups +
    `Choose the metrics with <code>report: {pareto: [x, y]}</code> in the plan.`
  );
}

/** The cells of each group, in first-seen order. */
function byGroup(cells: readonly ParetoCell[]): Map<string, ParetoCell[]> {
  const out = new Map<string, ParetoCell[]>();
  for (const c of cells) out.set(c.group, [...(out.get(c.group) ?? []), c]);
  return out;
}

/** The dashed front of each group, through its non-dominated points in x order. */
function frontLines(front: ParetoCell[]): DatasetSpec[] {
  const groups = [...byGroup(front).entries()];
  return groups.map(([group, cells], i) => ({
    label: group === "" ? "front" : `front ${group}`,
    color: groups.length > 1 ? paletteColor(i) : "#4e79a7",
    type: "line" as const,
    x: cells.map((c) => c.x.mean),
    y: cells.map((c) => c.y.mean),
    width: 1.5,
    dash: [6, 4],
    noLegend: groups.length === 1,
    order: 2,
  }));
}

/** The non-dominated points (labelled), the dashed fronts through them, and the dominated points. */
function cellDatasets(front: ParetoCell[], rest: ParetoCell[]): DatasetSpec[] {
  const name = (c: ParetoCell): string => c.config;
  const ds: DatasetSpec[] = [
    {
      label: `non-dominated (${front.length})`,
      color: "#1f5f99",
      fillColor: "#4e79a7",
      type: "scatter",
      x: front.map((c) => c.x.mean),
      y: front.map((c) => c.y.mean),
      radius: 6,
      pointStyle: "circle",
      pointLabels: front.map(name),
      notes: front.map(name),
      order: 0,
    },
    ...frontLines(front),
  ];
  if (rest.length > 0) {
    ds.push({
      label: `dominated (${rest.length})`,
      color: MUTED_COLOR,
      fillColor: "#d0d7de",
      type: "scatter",
      x: rest.map((c) => c.x.mean),
      y: rest.map((c) => c.y.mean),
      radius: 4.5,
      pointStyle: "circle",
      notes: rest.map((c) => (c.group === "" ? c.config : `${c.config} (dominated within ${c.group})`)),
      order: 1,
    });
  }
  return ds;
}

interface SeedPoints {
  x: number[];
  y: number[];
  /** "config seed N" of each point. */
  names: string[];
}

/** Every run (configuration and seed) with values of both metrics. */
function seedPoints(d: SweepReportData): SeedPoints {
  const [mx, my] = d.pareto;
  const sx = perSeed(d, mx);
  const sy = perSeed(d, my);
  const out: SeedPoints = { x: [], y: [], names: [] };
  for (const c of d.report.configs) {
    d.report.seeds.forEach((seed, i) => {
      const a = sx.get(c)?.[i];
      const b = sy.get(c)?.[i];
      if (a !== null && a !== undefined && b !== null && b !== undefined) {
        out.x.push(a);
        out.y.push(b);
        out.names.push(`${c} seed ${seed}`);
      }
    });
  }
  return out;
}

function paretoChart(d: SweepReportData, cells: ParetoCell[], front: ParetoCell[], rest: ParetoCell[]): ChartSpec {
  const [mx, my] = d.pareto;
  const logX = wantsLog(cells.map((c) => c.x.mean));
  const logY = wantsLog(cells.map((c) => c.y.mean));
  const ds = cellDatasets(front, rest);
  // Individual seeds, off by default (legend toggles them).
  const seeds = seedPoints(d);
  if (d.report.seeds.length > 1 && seeds.x.length > 0) {
    ds.push({
      label: "individual seeds",
      color: "#f28e2b",
      type: "scatter",
      x: seeds.x,
      y: seeds.y,
      radius: 2.5,
      pointStyle: "crossRot",
      notes: seeds.names,
      hidden: true,
      order: 3,
    });
  }
  const xr = paddedRange([...cells.map((c) => c.x.mean), ...seeds.x], logX);
  const yr = paddedRange([...cells.map((c) => c.y.mean), ...seeds.y], logY);
  return {
    id: "pareto",
    kind: "scatter",
    title: `Pareto front: ${mx} vs ${my}`,
    note: `${cells.length} configurations; hover a point for its name${logX || logY ? `; logarithmic ${logX && logY ? "axes" : logX ? "x axis" : "y axis"}` : ""}. "individual seeds" in the legend shows the spread.`,
    xLabel: metricLabel(mx),
    yLabel: metricLabel(my),
    xScale: logX ? "logarithmic" : "linear",
    yScale: logY ? "logarithmic" : "linear",
    datasets: ds,
    ...(xr !== null ? { xMin: xr[0], xMax: xr[1] } : {}),
    ...(yr !== null ? { yMin: yr[0], yMax: yr[1] } : {}),
    height: 420,
    xUnit: metricUnit(mx),
    yUnit: metricUnit(my),
  };
}

/** Both metrics of every configuration, the non-dominated ones first; the group when there are several. */
function paretoTable(d: SweepReportData, front: ParetoCell[], rest: ParetoCell[], within: string[]): string {
  const [mx, my] = d.pareto;
  const range = (s: Stat): string | null => (s.min === s.max ? null : `${fmtShort(s.min)} – ${fmtShort(s.max)}`);
  const grouped = within.length > 0;
  const rows: Cell[][] = [...front, ...rest].map((c) => [
    c.config,
    ...(grouped ? [c.group] : []),
    c.x.mean,
    range(c.x),
    c.y.mean,
    range(c.y),
    c.front
      ? { html: '<span class="badge PASS">non-dominated</span>' }
      : { html: '<span class="muted">dominated</span>' },
  ]);
  const head = [
    `configuration`,
    ...(grouped ? [`compared within`] : []),
    `${mx} mean`,
    `${mx} seed range`,
    `${my} mean`,
    `${my} seed range`,
    "",
  ];
  return table(head, rows, { right: [false, ...(grouped ? [false] : []), true, true, true, true, false] });
}

export function paretoSection(charts: ChartSet, d: SweepReportData): string {
  const [mx, my] = d.pareto;
  const cells = paretoCells(d);
  const within = paretoWithin(d);
  const lead = paretoLead(mx, my, within);
  if (cells.length === 0)
    return `<p class="lead">${lead}</p>${emptyNote("Pareto front", `No configuration has valid values of both ${mx} and ${my}.`)}`;
  const front = cells.filter((c) => c.front).sort((a, b) => a.x.mean - b.x.mean);
  const rest = cells.filter((c) => !c.front);
  return (
    `<p class="lead">${lead}</p>` +
    `<div class="pareto">${charts.figure(paretoChart(d, cells, front, rest))}</div>` +
    paretoTable(d, front, rest, within)
  );
}

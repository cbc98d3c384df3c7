// The Pareto section of a sweep report: configurations as points of two metrics, the
// non-dominated ones labelled and joined, and a table of both metrics.

import { MUTED_COLOR, fmtShort, paddedRange, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { emptyNote, esc, table, type Cell, type ChartSet } from "./html.js";
import { higherIsBetter, metricLabel, metricUnit } from "./metricInfo.js";
import type { SweepReportData } from "./sweepData.js";
import { perSeed, stat, wantsLog, type Stat } from "./sweepValues.js";

export interface ParetoCell {
  config: string;
  x: Stat;
  y: Stat;
  front: boolean;
}

/** Cells with both metrics, each marked when no other cell is as good on both and better on one. */
export function paretoCells(d: SweepReportData): ParetoCell[] {
  const [mx, my] = d.pareto;
  const xs = perSeed(d, mx);
  const ys = perSeed(d, my);
  const cells: ParetoCell[] = [];
  for (const c of d.report.configs) {
    const x = stat(xs.get(c) ?? []);
    const y = stat(ys.get(c) ?? []);
    if (x !== null && y !== null) cells.push({ config: c, x, y, front: false });
  }
  const hx = higherIsBetter(mx) ? 1 : -1;
  const hy = higherIsBetter(my) ? 1 : -1;
  for (const a of cells) {
    a.front = !cells.some((b) => {
      if (b === a) return false;
      const gx = hx * (b.x.mean - a.x.mean);
      const gy = hy * (b.y.mean - a.y.mean);
      return gx >= 0 && gy >= 0 && (gx > 0 || gy > 0);
    });
  }
  return cells;
}

/** What the plot shows and which direction of each metric is better. */
function paretoLead(mx: string, my: string): string {
  const dir = (m: string): string => (higherIsBetter(m) ? "higher" : "lower");
  return (
    `Each point is one configuration (mean over seeds) of <code>${esc(mx)}</code> (x, ${dir(mx)} is better) against <code>${esc(my)}</code> (y, ${dir(my)} is better). ` +
    `Non-dominated configurations — no other is at least as good on both and better on one — are labelled and joined by the dashed front. ` +
    `Choose the metrics with <code>report: {pareto: [x, y]}</code> in the plan.`
  );
}

/** The non-dominated points (labelled), the dashed front through them, and the dominated points. */
function cellDatasets(front: ParetoCell[], rest: ParetoCell[]): DatasetSpec[] {
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
      pointLabels: front.map((c) => c.config),
      notes: front.map((c) => c.config),
      order: 0,
    },
    {
      label: "front",
      color: "#4e79a7",
      type: "line",
      x: front.map((c) => c.x.mean),
      y: front.map((c) => c.y.mean),
      width: 1.5,
      dash: [6, 4],
      noLegend: true,
      order: 2,
    },
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
      notes: rest.map((c) => c.config),
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

/** Both metrics of every configuration, the non-dominated ones first. */
function paretoTable(d: SweepReportData, front: ParetoCell[], rest: ParetoCell[]): string {
  const [mx, my] = d.pareto;
  const range = (s: Stat): string | null => (s.min === s.max ? null : `${fmtShort(s.min)} – ${fmtShort(s.max)}`);
  const rows: Cell[][] = [...front, ...rest].map((c) => [
    c.config,
    c.x.mean,
    range(c.x),
    c.y.mean,
    range(c.y),
    c.front ? { html: '<span class="badge PASS">non-dominated</span>' } : { html: '<span class="muted">dominated</span>' },
  ]);
  return table([`configuration`, `${mx} mean`, `${mx} seed range`, `${my} mean`, `${my} seed range`, ""], rows, {
    right: [false, true, true, true, true, false],
  });
}

export function paretoSection(charts: ChartSet, d: SweepReportData): string {
  const [mx, my] = d.pareto;
  const cells = paretoCells(d);
  const lead = paretoLead(mx, my);
  if (cells.length === 0)
    return `<p class="lead">${lead}</p>${emptyNote("Pareto front", `No configuration has valid values of both ${mx} and ${my}.`)}`;
  const front = cells.filter((c) => c.front).sort((a, b) => a.x.mean - b.x.mean);
  const rest = cells.filter((c) => !c.front);
  return (
    `<p class="lead">${lead}</p>` +
    `<div class="pareto">${charts.figure(paretoChart(d, cells, front, rest))}</div>` +
    paretoTable(d, front, rest)
  );
}

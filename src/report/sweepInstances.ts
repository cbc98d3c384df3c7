// The per-instance load of a sweep report: requests routed to each instance, per configuration
// (mean over seeds), so that a routing policy that piles the load on one instance shows why it
// collapsed. The counts come from each run's metrics (perInstanceRouted and the per-instance
// blocks), which the run records already hold; stdout is not involved.

import type { RunRecord } from "../experiment/store.js";
import type { SweepReport } from "../experiment/report.js";
import { paletteColor, type DatasetSpec } from "./chartSpec.js";
import { emptyNote, table, type Cell, type ChartSet } from "./html.js";

/**
 * Mean, min and max of the values present (sweepValues.ts has the same for metrics; not imported: it reads sweep report
 * data).
 */
function stat(vs: (number | null)[]): { mean: number; min: number; max: number } | null {
  const v = vs.filter((x): x is number => x !== null);
  if (v.length === 0) return null;
  return { mean: v.reduce((s, x) => s + x, 0) / v.length, min: Math.min(...v), max: Math.max(...v) };
}

/** The per-instance counts of one run. */
export interface InstanceLoad {
  config: string;
  seed: number;
  /** Requests routed to each instance, in instance order. */
  routed: number[];
  /** Requests each instance completed. */
  completed: number[];
}

/** Most instances drawn as separate bars; a larger cluster gets the table only. */
const MAX_CHART_INSTANCES = 32;

/** Per-instance counts of the first run of each (configuration, seed) that finished. */
export function instanceLoads(report: SweepReport, records: readonly RunRecord[]): InstanceLoad[] {
  const configs = new Set(report.configs);
  const seeds = new Set(report.seeds);
  const out: InstanceLoad[] = [];
  for (const r of records) {
    if (r.rep !== 0 || r.status !== "ok" || r.metrics === null || !configs.has(r.config) || !seeds.has(r.seed))
      continue;
    const m = r.metrics;
    out.push({
      config: r.config,
      seed: r.seed,
      routed: [...(m.perInstanceRouted ?? [])],
      completed: m.instances.map((b) => b.completed_requests),
    });
  }
  return out;
}

interface InstanceStats {
  /** Per instance: mean, min and max over seeds of the routed count (null past the configuration's size). */
  routed: ({ mean: number; min: number; max: number } | null)[];
  completed: (number | null)[];
  seeds: number;
}

/** Mean over seeds of each instance's counts, per configuration. */
function statsByConfig(report: SweepReport, loads: readonly InstanceLoad[], width: number): Map<string, InstanceStats> {
  const out = new Map<string, InstanceStats>();
  for (const c of report.configs) {
    const runs = loads.filter((l) => l.config === c);
    if (runs.length === 0) continue;
    const routed = Array.from({ length: width }, (_, k) =>
      stat(runs.map((l) => (k < l.routed.length ? l.routed[k]! : null))),
    );
    const completed = Array.from(
      { length: width },
      (_, k) => stat(runs.map((l) => (k < l.completed.length ? l.completed[k]! : null)))?.mean ?? null,
    );
    out.set(c, { routed, completed, seeds: runs.length });
  }
  return out;
}

/** max ÷ mean of the instances' routed counts: 1 is an even split, N is everything on one of N. */
function imbalance(s: InstanceStats): number | null {
  const means = s.routed.filter((x): x is NonNullable<typeof x> => x !== null).map((x) => x.mean);
  const avg = means.reduce((a, b) => a + b, 0) / Math.max(1, means.length);
  return avg > 0 ? Math.max(...means) / avg : null;
}

function loadChart(charts: ChartSet, report: SweepReport, stats: Map<string, InstanceStats>, width: number): string {
  const configs = report.configs.filter((c) => stats.has(c));
  const multiSeed = report.seeds.length > 1;
  const ds: DatasetSpec[] = Array.from({ length: width }, (_, k) => ({
    label: `instance_${k}`,
    color: paletteColor(k),
    y: configs.map((c) => stats.get(c)!.routed[k]?.mean ?? null),
    whiskers: multiSeed
      ? configs.map((c) => {
          const s = stats.get(c)!.routed[k];
          return s ? [s.min, s.max] : null;
        })
      : undefined,
    notes: configs.map(
      (c) =>
        `${stats.get(c)!.seeds}/${report.seeds.length} seeds; completed ${stats.get(c)!.completed[k]?.toFixed(1) ?? "-"}`,
    ),
  }));
  return charts.figure({
    id: "inst-routed",
    kind: "bar",
    title: "Requests routed per instance",
    note: `Mean over seeds${multiSeed ? "; whiskers: min and max over seeds" : ""}; one bar per instance. Even bars: the load is split evenly; one tall bar: the policy piles it on one instance.`,
    xLabel: "configuration",
    yLabel: "requests routed",
    labels: configs,
    datasets: ds,
    yMin: 0,
    yInteger: true,
    legend: true,
    allLabels: true,
  });
}

function loadTable(report: SweepReport, stats: Map<string, InstanceStats>, width: number): string {
  const rows: Cell[][] = report.configs
    .filter((c) => stats.has(c))
    .map((c) => {
      const s = stats.get(c)!;
      const ratio = imbalance(s);
      return [c, ...s.routed.map((x) => x?.mean ?? null), ratio === null ? null : { text: ratio.toFixed(2) }];
    });
  const cols = ["configuration", ...Array.from({ length: width }, (_, k) => `instance_${k}`), "max ÷ mean"];
  return table(cols, rows, { right: cols.map((_, i) => i > 0) });
}

export function instanceSection(
  charts: ChartSet,
  report: SweepReport,
  loads: readonly InstanceLoad[] | undefined,
): string {
  if (loads === undefined || loads.length === 0)
    return emptyNote(
      "Requests routed per instance",
      "No per-instance counts in these results (runs.jsonl is missing or no run finished).",
    );
  const width = Math.max(...loads.map((l) => l.routed.length));
  if (width === 0) return emptyNote("Requests routed per instance", "The runs routed no requests.");
  if (width === 1) return `<p class="lead">Every configuration runs one instance: it takes every routed request.</p>`;
  const stats = statsByConfig(report, loads, width);
  const chart =
    width <= MAX_CHART_INSTANCES
      ? loadChart(charts, report, stats, width)
      : emptyNote("Requests routed per instance", `${width} instances: see the table.`);
  return `<div class="grid">${chart}</div><h3>Requests routed per instance (mean over seeds)</h3>${loadTable(report, stats, width)}`;
}

// The run report's fleet section (autoscaled runs, docs/autoscaling.md "Outputs"): the instance
// count by lifecycle state and the nodes over the load curve, TTFT p99 by arrival time, the
// autoscaler's figures (GPU-hours) and its scaling events.

import type { RunReportData } from "./runData.js";
import type { FleetSeries, TimeSeries } from "../metrics/timeSeries.js";
import { AGGREGATE_COLOR, MUTED_COLOR, fmtShort, paletteColor, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { quantile, r6, sortedOf, thin } from "./stats.js";
import { ChartSet, cards, esc, table, type Cell } from "./html.js";

/** Points per fleet line; load and TTFT buckets per run. */
const MAX_POINTS = 600;
const LOAD_BUCKETS = 120;
/** Scaling events listed in the table (the rest are counted). */
const MAX_EVENT_ROWS = 400;

/** Arrivals and TTFT p99 per arrival-time bucket of `widthUs` (bucket k covers [k·w, (k+1)·w)). */
export interface LoadBuckets {
  widthUs: number;
  /** Bucket midpoints (s). */
  midS: number[];
  /** Arrivals per second in each bucket. */
  rate: number[];
  /** TTFT p99 (ms) of the requests arriving in each bucket that got a first token; null when none did. */
  ttftP99Ms: (number | null)[];
}

export function loadBuckets(d: RunReportData, widthUs: number, endUs: number): LoadBuckets {
  const n = Math.max(1, Math.ceil(endUs / widthUs));
  const counts = new Array<number>(n).fill(0);
  const ttfts: number[][] = Array.from({ length: n }, () => []);
  const { arrivalUs, ttftUs } = d.requests;
  for (let i = 0; i < arrivalUs.length; i++) {
    const k = Math.floor(arrivalUs[i]! / widthUs);
    if (k < 0 || k >= n) continue;
    counts[k]!++;
    if (ttftUs[i]! >= 0) ttfts[k]!.push(ttftUs[i]!);
  }
  return {
    widthUs,
    midS: counts.map((_, k) => r6(((k + 0.5) * widthUs) / 1e6)),
    rate: counts.map((c) => r6(c / (widthUs / 1e6))),
    ttftP99Ms: ttfts.map((v) => (v.length === 0 ? null : r6(quantile(sortedOf(v), 0.99) / 1000))),
  };
}

/** Routable (Active + WarmingUp), starting (Scheduling + Loading) and draining instances per sample. */
export function fleetLines(f: FleetSeries): { routable: number[]; starting: number[]; draining: number[] } {
  const col = (name: string): number[] => f.byState[f.states.indexOf(name)] ?? [];
  const sum = (a: number[], b: number[]): number[] => a.map((v, i) => v + (b[i] ?? 0));
  return {
    routable: sum(col("Active"), col("WarmingUp")),
    starting: sum(col("Scheduling"), col("Loading")),
    draining: col("Draining"),
  };
}

function fleetChart(ts: TimeSeries, f: FleetSeries, load: LoadBuckets, minReplicas: number): ChartSpec {
  const x = thin(
    ts.timesUs.map((t) => t / 1e6),
    MAX_POINTS,
    "last",
  );
  const lines = fleetLines(f);
  const ds: DatasetSpec[] = [
    {
      label: "routable instances",
      color: paletteColor(0),
      y: thin(lines.routable, MAX_POINTS, "last"),
      width: 2.25,
      order: 0,
    },
    { label: "scheduling or loading", color: paletteColor(1), y: thin(lines.starting, MAX_POINTS, "last"), order: 1 },
    { label: "draining", color: paletteColor(2), y: thin(lines.draining, MAX_POINTS, "last"), order: 1 },
  ];
  if (f.nodesReady.some((v) => v > 0)) {
    ds.push({
      label: "nodes ready",
      color: paletteColor(4),
      y: thin(f.nodesReady, MAX_POINTS, "last"),
      dash: [6, 3],
      order: 1,
    });
  }
  ds.push({
    label: "arrival rate (right axis)",
    color: MUTED_COLOR,
    x: load.midS,
    y: load.rate,
    rightAxis: true,
    order: 2,
  });
  return {
    id: "fleet-size",
    kind: "line",
    title: "Fleet size over the load",
    note: `Instances by lifecycle state, sampled every ${fmtShort(ts.intervalUs / 1e6)} s; the grey line is the arrival rate per ${fmtShort(load.widthUs / 1e6)} s bucket. min_replicas = ${minReplicas}.`,
    xLabel: "simulated time (s)",
    yLabel: "instances",
    y2Label: "arrivals per second",
    x,
    xMin: 0,
    xMax: Math.max(x[x.length - 1] ?? 0, load.midS[load.midS.length - 1] ?? 0),
    datasets: ds,
    yMin: 0,
    yInteger: true,
    tooltip: "index",
    xUnit: "s",
    height: 320,
    refLines: [{ axis: "y", value: minReplicas, label: "min_replicas" }],
  };
}

function ttftChart(load: LoadBuckets, ts: TimeSeries, f: FleetSeries): ChartSpec {
  const routable = thin(fleetLines(f).routable, MAX_POINTS, "last");
  const x = thin(
    ts.timesUs.map((t) => t / 1e6),
    MAX_POINTS,
    "last",
  );
  return {
    id: "fleet-ttft",
    kind: "line",
    title: "TTFT p99 by arrival time",
    note: `p99 TTFT of the requests arriving in each ${fmtShort(load.widthUs / 1e6)} s bucket; cold starts show as spikes while new instances load.`,
    xLabel: "arrival time (s)",
    yLabel: "TTFT p99 (ms)",
    y2Label: "routable instances",
    datasets: [
      { label: "TTFT p99", color: AGGREGATE_COLOR, x: load.midS, y: load.ttftP99Ms, width: 2, order: 0 },
      { label: "routable instances (right axis)", color: paletteColor(0), x, y: routable, rightAxis: true, order: 1 },
    ],
    xMin: 0,
    yMin: 0,
    tooltip: "index",
    xUnit: "s",
    yUnit: "ms",
    height: 300,
  };
}

function summaryCards(d: RunReportData): string {
  const a = d.autoscaler!;
  return cards([
    { label: "instances created / drained / terminated", value: `${a.created} / ${a.drained} / ${a.terminated}` },
    { label: "peak routable instances", value: String(a.peakRoutable) },
    { label: "min_replicas", value: String(a.minReplicas) },
    {
      label: "instance GPU-hours",
      value: a.instanceGpuHours.toFixed(4),
      title: "GPUs held from placement to termination or the end of the run",
    },
    ...(a.nodeGpuHours !== null
      ? [{ label: "nodes provisioned / node GPU-hours", value: `${a.nodesProvisioned} / ${a.nodeGpuHours.toFixed(4)}` }]
      : []),
  ]);
}

function eventsTable(d: RunReportData): string {
  const ev = d.autoscaler!.events;
  if (ev.length === 0) return `<p class="note">No scaling or lifecycle event during the run.</p>`;
  const rows: Cell[][] = ev
    .slice(0, MAX_EVENT_ROWS)
    .map((e) => [r6(e.t / 1e6), e.kind, { text: e.instance, cls: "mono" }, { text: e.reason, cls: "wrap" }]);
  const more =
    ev.length > MAX_EVENT_ROWS ? `<p class="note">${ev.length - MAX_EVENT_ROWS} later events not shown.</p>` : "";
  return (
    `<details><summary>Scaling events (${ev.length})</summary>` +
    table(["time (s)", "kind", "instance or node", "reason"], rows, {
      right: [true, false, false, false],
      wrap: [false, false, false, true],
    }) +
    `${more}</details>`
  );
}

/** The section's HTML; empty when the run has no autoscaler data. */
export function fleetSection(charts: ChartSet, d: RunReportData): string {
  if (d.autoscaler === undefined) return "";
  const ts = d.timeSeries;
  const f = ts?.fleet;
  let figs = "";
  if (ts === null || f === undefined || ts.timesUs.length === 0) {
    figs = `<div class="empty">No fleet samples: the run ended before the first sample (see --report-interval).</div>`;
  } else {
    const end = ts.timesUs[ts.timesUs.length - 1]!;
    const width = ts.intervalUs * Math.max(1, Math.ceil(ts.timesUs.length / LOAD_BUCKETS));
    const load = loadBuckets(d, width, end);
    figs = `<div class="grid">${charts.figure(fleetChart(ts, f, load, d.autoscaler.minReplicas))}${charts.figure(ttftChart(load, ts, f))}</div>`;
  }
  return (
    `<p class="lead">How the fleet followed the load: ${esc("instances are routable once loaded, drain when scaled down and terminate when idle")}. GPU-hours count each instance's GPUs from placement to termination.</p>` +
    summaryCards(d) +
    figs +
    eventsTable(d)
  );
}

// Run report sections built from per-instance data: request counts and load per instance, and
// the KV cache.

import type { RunReportData } from "./runData.js";
import type { SeriesField } from "../metrics/timeSeries.js";
import type { DatasetSpec } from "./chartSpec.js";
import { mean } from "./stats.js";
import { ChartSet, cards, emptyNote, table, type Card, type Cell } from "./html.js";

type RunMetrics = RunReportData["metrics"];
type SeriesStats = { mean: number; max: number };

/** One instance's sampled load (each null without time series). */
interface InstanceLoad {
  q: SeriesStats | null;
  b: SeriesStats | null;
  kv: SeriesStats | null;
  f: SeriesStats | null;
}

/** Mean and peak of a per-instance series (null without time series). */
function seriesStats(d: RunReportData, k: number, f: SeriesField): SeriesStats | null {
  const ts = d.timeSeries;
  if (ts === null || ts.timesUs.length === 0) return null;
  const arr = ts.instances[k]?.[f];
  if (arr === undefined || arr.length === 0) return null;
  // A loop, not Math.max(...arr): a long series overflows the stack of a browser worker.
  return { mean: mean(arr), max: arr.reduce((m, x) => Math.max(m, x), -Infinity) };
}

function allZero(ds: DatasetSpec[]): boolean {
  return ds.every((d) => d.y.every((v) => v === null || v === 0));
}

export function instancesSection(charts: ChartSet, d: RunReportData): string {
  const m = d.metrics;
  const names = m.instances.map((b) => b.instance_id);
  const routed = names.map((_, k) => m.perInstanceRouted[k] ?? 0);
  const figs: string[] = [requestsFigure(charts, m, names, routed), tokensFigure(charts, m, names)];
  const load: InstanceLoad[] = names.map((_, k) => ({
    q: seriesStats(d, k, "queueDepth"),
    b: seriesStats(d, k, "batchSize"),
    kv: seriesStats(d, k, "kvUtilization"),
    f: seriesStats(d, k, "inFlight"),
  }));
  if (load.every((l) => l.q !== null)) figs.push(loadFigure(charts, names, load));
  return `<div class="grid">${figs.join("")}</div>` + instancesTable(m, routed, load);
}

function requestsFigure(charts: ChartSet, m: RunMetrics, names: string[], routed: number[]): string {
  const reqDs: DatasetSpec[] = [
    { label: "routed", color: "#4e79a7", y: routed },
    { label: "completed", color: "#59a14f", y: m.instances.map((b) => b.completed_requests) },
    { label: "still queued or running", color: "#edc948", y: m.instances.map((b) => b.still_queued + b.still_running) },
    { label: "preemptions", color: "#e15759", y: m.instances.map((b) => b.preemption_count) },
  ];
  if (m.instances.some((b) => b.dropped_unservable > 0))
    reqDs.push({ label: "dropped (unservable)", color: "#9c755f", y: m.instances.map((b) => b.dropped_unservable) });
  if (allZero(reqDs)) return emptyNote("Requests per instance", "No request reached an instance.");
  return charts.figure({
    id: "inst-requests",
    kind: "bar",
    title: "Requests per instance",
    note: "Requests the router sent to each instance, how many finished, how many were left at the end, and preemptions.",
    xLabel: "instance",
    yLabel: "requests",
    labels: names,
    datasets: reqDs,
    yMin: 0,
    yInteger: true,
  });
}

function tokensFigure(charts: ChartSet, m: RunMetrics, names: string[]): string {
  const tokenDs: DatasetSpec[] = [
    { label: "input tokens", color: "#76b7b2", y: m.instances.map((b) => b.total_input_tokens) },
    { label: "output tokens", color: "#f28e2b", y: m.instances.map((b) => b.total_output_tokens) },
  ];
  if (allZero(tokenDs)) return emptyNote("Tokens per instance", "No request completed.");
  return charts.figure({
    id: "inst-tokens",
    kind: "bar",
    title: "Tokens per instance",
    note: "Prompt (input) and generated (output) tokens of the requests each instance completed.",
    xLabel: "instance",
    yLabel: "tokens",
    labels: names,
    stacked: true,
    datasets: tokenDs,
    yMin: 0,
  });
}

/** Only called when every instance has time series. */
function loadFigure(charts: ChartSet, names: string[], load: InstanceLoad[]): string {
  return charts.figure({
    id: "inst-load",
    kind: "bar",
    title: "Mean load per instance",
    note: "Time averages over the sampled series: waiting requests, running batch size and in-flight requests.",
    xLabel: "instance",
    yLabel: "requests (time average)",
    labels: names,
    datasets: [
      { label: "mean queue depth", color: "#e15759", y: load.map((l) => l.q!.mean) },
      { label: "mean batch size", color: "#4e79a7", y: load.map((l) => l.b!.mean) },
      { label: "mean in-flight", color: "#b07aa1", y: load.map((l) => l.f!.mean) },
    ],
    yMin: 0,
  });
}

function instancesTable(m: RunMetrics, routed: number[], load: InstanceLoad[]): string {
  const rows: Cell[][] = m.instances.map((b, k) => [
    b.instance_id,
    routed[k]!,
    b.completed_requests,
    b.still_queued + b.still_running,
    b.dropped_unservable,
    b.preemption_count,
    b.responses_per_sec,
    b.ttft_p99_ms,
    b.e2e_p99_ms,
    b.itl_mean_ms,
    load[k]!.kv === null ? null : `${(load[k]!.kv!.mean * 100).toFixed(1)}%`,
    load[k]!.kv === null ? null : `${(load[k]!.kv!.max * 100).toFixed(1)}%`,
  ]);
  const cols = [
    "instance",
    "routed",
    "completed",
    "left at end",
    "dropped",
    "preemptions",
    "req/s",
    "TTFT p99 (ms)",
    "E2E p99 (ms)",
    "ITL mean (ms)",
    "mean GPU KV",
    "peak GPU KV",
  ];
  return table(cols, rows, { right: cols.map((_, i) => i > 0) });
}

export function kvSection(charts: ChartSet, d: RunReportData): string {
  const m = d.metrics;
  const names = m.instances.map((b) => b.instance_id);
  const figs: string[] = [];
  const usage = m.instances.map((_, k) => seriesStats(d, k, "kvUtilization"));
  if (usage.every((u): u is SeriesStats => u !== null)) figs.push(kvUseFigure(charts, names, usage));
  if (m.cluster.preemption_count > 0) figs.push(preemptionsFigure(charts, m, names));
  const chart = figs.join("");
  return `<p class="lead">${kvLead(d)}</p>${cards(kvCards(d))}${chart !== "" ? `<div class="grid">${chart}</div>` : ""}`;
}

function kvCards(d: RunReportData): Card[] {
  const m = d.metrics;
  const kv = m.kv;
  const list: Card[] = [
    {
      label: "prefix cache hit rate",
      value: `${(kv.cacheHitRate * 100).toFixed(1)}`,
      unit: "%",
      title: "Mean over instances of the fraction of prompt blocks found in the KV cache",
    },
    { label: "preemptions", value: String(m.cluster.preemption_count) },
    {
      label: "preemption rate",
      value: kv.preemptionRate.toFixed(4),
      unit: "/ req",
      title: "Preemptions per completed request",
    },
    { label: "KV thrashing rate", value: kv.kvThrashingRate.toFixed(4) },
    { label: "KV allocation failures", value: String(m.cluster.kv_allocation_failures ?? 0) },
  ];
  const peaks = m.instances.map((_, k) => seriesStats(d, k, "kvUtilization")?.max ?? null);
  if (peaks.every((p) => p !== null))
    list.push({
      label: "peak GPU KV use",
      value: `${(Math.max(...(peaks as number[])) * 100).toFixed(1)}`,
      unit: "%",
      title: "Highest sampled utilization of any instance",
    });
  if (kv.tiered !== null) {
    list.push({ label: "CPU-tier offloads", value: String(kv.tiered.offloads) });
    list.push({ label: "CPU-tier reloads", value: String(kv.tiered.reloads) });
    list.push({ label: "CPU-tier hits", value: String(kv.tiered.cpuHits) });
    list.push({ label: "CPU-tier misses", value: String(kv.tiered.cpuMisses) });
  }
  return list;
}

/** The KV cache's size per instance, in one sentence. */
function kvLead(d: RunReportData): string {
  const blocks = d.options["totalKvBlocks"];
  const cpu = d.options["kvCpuBlocks"];
  return `GPU KV cache of ${String(blocks)} blocks of ${String(d.options["blockSizeInTokens"])} tokens per instance${
    Number(cpu ?? 0) > 0 ? `, CPU offload tier of ${String(cpu)} blocks` : ", no CPU tier"
  }.`;
}

function kvUseFigure(charts: ChartSet, names: string[], usage: SeriesStats[]): string {
  const peak = Math.max(...usage.map((u) => u.max));
  return charts.figure({
    id: "kv-use",
    kind: "bar",
    title: "GPU KV use per instance",
    note: `Time-average and peak of the sampled GPU KV utilization${peak <= 0.5 ? " (axis zoomed to the peak)" : ""}.`,
    xLabel: "instance",
    yLabel: "GPU KV blocks in use (%)",
    labels: names,
    datasets: [
      { label: "mean", color: "#76b7b2", y: usage.map((u) => u.mean) },
      { label: "peak", color: "#4e79a7", y: usage.map((u) => u.max) },
    ],
    yPercent: true,
    yMin: 0,
    ...(peak > 0.5 ? { yMax: 1 } : {}),
    height: 260,
  });
}

function preemptionsFigure(charts: ChartSet, m: RunMetrics, names: string[]): string {
  return charts.figure({
    id: "kv-preempt",
    kind: "bar",
    title: "Preemptions per instance",
    note: "Requests evicted from the running batch to free KV blocks (they restart later).",
    xLabel: "instance",
    yLabel: "preemptions",
    labels: names,
    datasets: [{ label: "preemptions", color: "#e15759", y: m.instances.map((b) => b.preemption_count) }],
    yMin: 0,
    yInteger: true,
    legend: false,
    height: 260,
  });
}

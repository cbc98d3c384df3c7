// Run report sections built from per-instance data: request counts and load per instance, the
// sampled time series (per instance and cluster), and the KV cache.

import type { RunReportData } from "./runData.js";
import type { SeriesField, TimeSeries } from "../metrics/timeSeries.js";
import { AGGREGATE_COLOR, MUTED_COLOR, fmtShort, paletteColor, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { mean, thin, thinFactor, type Thinning } from "./stats.js";
import { ChartSet, cards, emptyNote, table, type Card, type Cell } from "./html.js";

/** Time-series points shown per line (longer runs are averaged into buckets). */
const MAX_POINTS = 600;
/** Above this many instances, instance lines are drawn faint and unlabelled. */
const MAX_LABELLED_INSTANCES = 16;

interface FieldInfo {
  field: SeriesField;
  title: string;
  yLabel: string;
  /** The cluster line: a sum over instances or their mean. */
  cluster: "sum" | "mean";
  thinning: Thinning;
  scale?: number;
  percent?: boolean;
  /** Fewer points for noisy gauges (each averages more samples). */
  maxPoints?: number;
  unit?: string;
  note: string;
  /** Shown instead of a flat chart when every sample is zero. */
  zero: string;
}

const FIELDS: FieldInfo[] = [
  {
    field: "queueDepth",
    title: "Queue depth",
    yLabel: "waiting requests",
    cluster: "sum",
    thinning: "mean",
    unit: "requests",
    zero: "No request waited in a queue at any sample.",
    note: "Requests waiting in each instance's queue.",
  },
  {
    field: "batchSize",
    title: "Running batch size",
    yLabel: "running requests",
    cluster: "sum",
    thinning: "mean",
    unit: "requests",
    zero: "No request was running at any sample.",
    note: "Requests in each instance's running batch.",
  },
  {
    field: "kvUtilization",
    title: "KV cache utilization — GPU",
    yLabel: "GPU KV blocks in use",
    cluster: "mean",
    thinning: "mean",
    percent: true,
    zero: "No GPU KV blocks were in use at any sample.",
    note: "Fraction of GPU KV blocks in use.",
  },
  {
    field: "cpuKvUtilization",
    title: "KV cache utilization — CPU tier",
    yLabel: "CPU KV blocks in use",
    cluster: "mean",
    thinning: "mean",
    percent: true,
    zero: "The CPU tier held no blocks at any sample.",
    note: "Fraction of the CPU offload tier in use.",
  },
  {
    field: "inFlight",
    title: "In-flight requests",
    yLabel: "in-flight requests",
    cluster: "sum",
    thinning: "mean",
    unit: "requests",
    zero: "No request was in flight at any sample.",
    note: "Requests routed to each instance and not yet finished (the router's view).",
  },
  {
    field: "completed",
    title: "Completed requests (cumulative)",
    yLabel: "completed requests",
    cluster: "sum",
    thinning: "last",
    unit: "requests",
    zero: "No request had completed by the last sample.",
    note: "Requests finished so far.",
  },
  {
    field: "preempted",
    title: "Preemptions (cumulative)",
    yLabel: "preemptions",
    cluster: "sum",
    thinning: "last",
    unit: "preemptions",
    zero: "No preemptions during the run.",
    note: "Preemptions so far (KV cache pressure).",
  },
  {
    field: "stepTimeUs",
    title: "Step time",
    maxPoints: 200,
    yLabel: "step duration (ms)",
    cluster: "mean",
    thinning: "mean",
    scale: 1 / 1000,
    unit: "ms",
    zero: "No batch step had run at any sample.",
    note: "Duration of each instance's most recent batch step.",
  },
];

function seriesChart(ts: TimeSeries, f: FieldInfo): ChartSpec {
  const n = ts.timesUs.length;
  const max = f.maxPoints ?? MAX_POINTS;
  const factor = thinFactor(n, max);
  const x = thin(
    ts.timesUs.map((t) => t / 1e6),
    max,
    "last",
  );
  const scale = f.scale ?? 1;
  const values = (arr: number[]): number[] => thin(scale === 1 ? arr : arr.map((v) => v * scale), max, f.thinning);
  const ds: DatasetSpec[] = [];
  const k = ts.instances.length;
  // A cluster sum over many instances dwarfs each instance's line: it gets the right axis.
  const right = f.cluster === "sum" && k > 4;
  if (k > 1) {
    ds.push({
      label: f.cluster === "sum" ? (right ? "cluster total (right axis)" : "cluster (sum)") : "cluster (mean)",
      color: AGGREGATE_COLOR,
      y: values(ts.cluster[f.field]),
      width: 2.25,
      order: 0,
      ...(right ? { rightAxis: true } : {}),
    });
  }
  ts.instances.forEach((blk, i) => {
    const many = k > MAX_LABELLED_INSTANCES;
    ds.push({
      label: many ? "instances (each)" : `instance_${i}`,
      color: many ? MUTED_COLOR : paletteColor(i),
      y: values(blk[f.field]),
      width: many ? 0.75 : 1.25,
      order: 1,
      ...(many && i > 0 ? { noLegend: true } : {}),
    });
  });
  const interval = fmtShort(ts.intervalUs / 1e6);
  const reduced =
    factor === 1 ? "" : f.thinning === "last" ? ` Every ${factor}th sample shown.` : ` Each point averages ${factor} samples.`;
  return {
    id: `ts-${f.field}`,
    kind: "line",
    title: f.title,
    note: `${f.note} Sampled every ${interval} s.${reduced}`,
    xLabel: "simulated time (s)",
    yLabel: f.percent ? `${f.yLabel} (%)` : f.yLabel,
    ...(right ? { y2Label: `${f.yLabel}, cluster total` } : {}),
    x,
    xMin: 0,
    xMax: x[x.length - 1]!,
    datasets: ds,
    yMin: 0,
    // Utilization axes span 0–100% unless the peak is low enough that the line would sit flat.
    ...(f.percent ? { yPercent: true, ...(peakOf(ts, f.field) > 0.5 ? { yMax: 1 } : {}) } : {}),
    tooltip: "index",
    xUnit: "s",
    ...(f.unit === "requests" || f.unit === "preemptions" ? { yInteger: true } : {}),
    ...(f.unit !== undefined ? { yUnit: f.unit } : {}),
    height: 280,
  };
}

function peakOf(ts: TimeSeries, field: SeriesField): number {
  let m = 0;
  for (const blk of [...ts.instances, ts.cluster]) for (const v of blk[field]) if (v > m) m = v;
  return m;
}

function hasCpuTier(d: RunReportData): boolean {
  return Number(d.options["kvCpuBlocks"] ?? 0) > 0;
}

export function timeSeriesSection(charts: ChartSet, d: RunReportData): string {
  const ts = d.timeSeries;
  if (ts === null || ts.timesUs.length === 0) {
    return `<div class="empty">No time series: the run ended before the first sample (every ${fmtShort((ts?.intervalUs ?? Number(d.options["reportInterval"] ?? 100000)) / 1e6)} s of simulated time; see --report-interval).</div>`;
  }
  const k = ts.instances.length;
  const figs: string[] = [];
  for (const f of FIELDS) {
    if (f.field === "cpuKvUtilization" && !hasCpuTier(d)) {
      figs.push(emptyNote(f.title, "No CPU tier in this run (--kv-cpu-blocks 0)."));
      continue;
    }
    if (peakOf(ts, f.field) === 0) {
      figs.push(emptyNote(f.title, f.zero));
      continue;
    }
    figs.push(charts.figure(seriesChart(ts, f)));
  }
  const lines =
    k > 1
      ? k > MAX_LABELLED_INSTANCES
        ? `the cluster (bold) and each of the ${k} instances (grey)`
        : `the cluster (bold) and each instance`
      : "the single instance";
  return (
    `<p class="lead">${ts.timesUs.length} samples, one every ${fmtShort(ts.intervalUs / 1e6)} s of simulated time (--report-interval ${ts.intervalUs} ticks), showing ${lines}. ` +
    `Click a legend entry to hide or show a line.</p><div class="grid">${figs.join("")}</div>`
  );
}

/** Mean and peak of a per-instance series (null without time series). */
function seriesStats(d: RunReportData, k: number, f: SeriesField): { mean: number; max: number } | null {
  const ts = d.timeSeries;
  if (ts === null || ts.timesUs.length === 0) return null;
  const arr = ts.instances[k]?.[f];
  if (arr === undefined || arr.length === 0) return null;
  return { mean: mean(arr), max: Math.max(...arr) };
}

export function instancesSection(charts: ChartSet, d: RunReportData): string {
  const m = d.metrics;
  const names = m.instances.map((b) => b.instance_id);
  const routed = names.map((_, k) => m.perInstanceRouted[k] ?? 0);
  const anyDropped = m.instances.some((b) => b.dropped_unservable > 0);
  const reqDs: DatasetSpec[] = [
    { label: "routed", color: "#4e79a7", y: routed },
    { label: "completed", color: "#59a14f", y: m.instances.map((b) => b.completed_requests) },
    { label: "still queued or running", color: "#edc948", y: m.instances.map((b) => b.still_queued + b.still_running) },
    { label: "preemptions", color: "#e15759", y: m.instances.map((b) => b.preemption_count) },
  ];
  if (anyDropped) reqDs.push({ label: "dropped (unservable)", color: "#9c755f", y: m.instances.map((b) => b.dropped_unservable) });
  const figs: string[] = [];
  const allZero = (ds: DatasetSpec[]): boolean => ds.every((d) => d.y.every((v) => v === null || v === 0));
  const tokenDs: DatasetSpec[] = [
    { label: "input tokens", color: "#76b7b2", y: m.instances.map((b) => b.total_input_tokens) },
    { label: "output tokens", color: "#f28e2b", y: m.instances.map((b) => b.total_output_tokens) },
  ];
  figs.push(
    allZero(reqDs)
      ? emptyNote("Requests per instance", "No request reached an instance.")
      : charts.figure({
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
        }),
  );
  figs.push(
    allZero(tokenDs)
      ? emptyNote("Tokens per instance", "No request completed.")
      : charts.figure({
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
        }),
  );
  const load = names.map((_, k) => ({
    q: seriesStats(d, k, "queueDepth"),
    b: seriesStats(d, k, "batchSize"),
    kv: seriesStats(d, k, "kvUtilization"),
    f: seriesStats(d, k, "inFlight"),
  }));
  if (load.every((l) => l.q !== null)) {
    figs.push(
      charts.figure({
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
      }),
    );
  }
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
  return `<div class="grid">${figs.join("")}</div>` + table(cols, rows, { right: cols.map((_, i) => i > 0) });
}

export function kvSection(charts: ChartSet, d: RunReportData): string {
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
    { label: "preemption rate", value: kv.preemptionRate.toFixed(4), unit: "/ req", title: "Preemptions per completed request" },
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
  const blocks = d.options["totalKvBlocks"];
  const cpu = d.options["kvCpuBlocks"];
  const lead = `GPU KV cache of ${String(blocks)} blocks of ${String(d.options["blockSizeInTokens"])} tokens per instance${
    Number(cpu ?? 0) > 0 ? `, CPU offload tier of ${String(cpu)} blocks` : ", no CPU tier"
  }.`;
  const figs: string[] = [];
  const names = m.instances.map((b) => b.instance_id);
  const usage = m.instances.map((_, k) => seriesStats(d, k, "kvUtilization"));
  if (usage.every((u) => u !== null)) {
    const peak = Math.max(...usage.map((u) => u!.max));
    figs.push(
      charts.figure({
        id: "kv-use",
        kind: "bar",
        title: "GPU KV use per instance",
        note: `Time-average and peak of the sampled GPU KV utilization${peak <= 0.5 ? " (axis zoomed to the peak)" : ""}.`,
        xLabel: "instance",
        yLabel: "GPU KV blocks in use (%)",
        labels: names,
        datasets: [
          { label: "mean", color: "#76b7b2", y: usage.map((u) => u!.mean) },
          { label: "peak", color: "#4e79a7", y: usage.map((u) => u!.max) },
        ],
        yPercent: true,
        yMin: 0,
        ...(peak > 0.5 ? { yMax: 1 } : {}),
        height: 260,
      }),
    );
  }
  if (m.cluster.preemption_count > 0) {
    figs.push(
      charts.figure({
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
      }),
    );
  }
  const chart = figs.join("");
  return `<p class="lead">${lead}</p>${cards(list)}${chart !== "" ? `<div class="grid">${chart}</div>` : ""}`;
}

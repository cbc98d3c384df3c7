// The run report's time-series section: the sampled series per instance and for the cluster. The
// per-instance and KV cache sections are in runInstances.ts, re-exported here for the run report.

import type { RunReportData } from "./runData.js";
import type { SeriesField, TimeSeries } from "../metrics/timeSeries.js";
import { AGGREGATE_COLOR, MUTED_COLOR, fmtShort, paletteColor, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { thin, thinFactor, type Thinning } from "./stats.js";
import { ChartSet, emptyNote } from "./html.js";

export { instancesSection, kvSection } from "./runInstances.js";

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
    factor === 1
      ? ""
      : f.thinning === "last"
        ? ` Every ${factor}th sample shown.`
        : ` Each point averages ${factor} samples.`;
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

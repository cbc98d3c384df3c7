// Latency distributions of a run report: TTFT, ITL and E2E as CDFs and histograms, for all
// requests and per SLO class, with a percentile table each.

import type { RunReportData } from "./runData.js";
import { AGGREGATE_COLOR, fmtShort, paletteColor, sloColors, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { binCounts, binLabels, cdfPoints, makeBins, quantile, sortedOf, weightedCdfPoints } from "./stats.js";
import { ChartSet, emptyNote, esc, table, type Cell } from "./html.js";

const MS = 1 / 1000;

export interface Group {
  name: string;
  color: string;
  /** Sorted values in ms. */
  ms: Float64Array;
}

/** Per-class sorted values (ms) of one per-request column, plus all requests. */
function groups(d: RunReportData, col: number[]): { all: Group; classes: Group[] } {
  const req = d.requests;
  const per: number[][] = req.sloClasses.map(() => []);
  const all: number[] = [];
  for (let i = 0; i < col.length; i++) {
    const v = col[i]!;
    if (!(v >= 0)) continue;
    per[req.slo[i]!]!.push(v * MS);
    all.push(v * MS);
  }
  const colors = sloColors(req.sloClasses);
  const classes = req.sloClasses
    .map((name, k) => ({ name, color: colors.get(name)!, ms: sortedOf(per[k]!) }))
    .filter((g) => g.ms.length > 0)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { all: { name: "all requests", color: AGGREGATE_COLOR, ms: sortedOf(all) }, classes };
}

/** A log x axis reads better when the tail is two orders of magnitude above the median. */
function wantsLog(sorted: Float64Array): boolean {
  if (sorted.length < 20 || !(sorted[0]! > 0)) return false;
  return sorted[sorted.length - 1]! / quantile(sorted, 0.5) > 100;
}

export function cdfChart(
  id: string,
  title: string,
  what: string,
  unit: string,
  all: Group,
  parts: Group[],
  partsKind: string,
): ChartSpec {
  const ds: DatasetSpec[] = [];
  const a = cdfPoints(all.ms, 1);
  ds.push({ label: `${all.name} (n=${all.ms.length})`, color: all.color, x: a.x, y: a.y, width: 2.25, order: 0 });
  if (parts.length > 1) {
    for (const g of parts) {
      const p = cdfPoints(g.ms, 1);
      ds.push({ label: `${g.name} (n=${g.ms.length})`, color: g.color, x: p.x, y: p.y, width: 1.5, order: 1 });
    }
  }
  const log = wantsLog(all.ms);
  const p99 = quantile(all.ms, 0.99);
  return {
    id,
    kind: "line",
    title,
    note: `Fraction of ${what} at or below each value${parts.length > 1 ? `, all and per ${partsKind}` : ""}${log ? "; logarithmic x axis (long tail)" : ""}. Dashed line: p99 of all.`,
    xLabel: `${title.split(" ")[0]} (${unit})`,
    yLabel: `fraction of ${what}`,
    xScale: log ? "logarithmic" : "linear",
    yPercent: true,
    yMin: 0,
    yMax: 1,
    xMin: log ? undefined : 0,
    datasets: ds,
    refLines: [{ axis: "x", value: p99, label: `p99 ${fmtShort(p99)} ${unit}` }],
    xUnit: unit,
  } as ChartSpec;
}

export function histChart(
  id: string,
  title: string,
  what: string,
  unit: string,
  all: Group,
  parts: Group[],
): ChartSpec {
  const bins = makeBins(all.ms);
  const labels = binLabels(bins, fmtShort);
  const ds: DatasetSpec[] = [];
  const split = parts.length > 1;
  for (const g of split ? parts : [all]) {
    ds.push({ label: split ? g.name : what, color: split ? g.color : "#4e79a7", y: binCounts(bins, g.ms), stack: "s" });
  }
  const log = spiky(ds.map((x) => x.y as number[]));
  const tail =
    bins.overflowFrom !== null
      ? `; the last bar counts everything ≥ ${fmtShort(bins.overflowFrom)} ${unit} (max ${fmtShort(all.ms[all.ms.length - 1]!)} ${unit})`
      : "";
  return {
    id,
    kind: "bar",
    title,
    note: `${split ? "Stacked by SLO class; " : ""}bins of ${fmtShort(bins.width)} ${unit}, labelled by their lower edge${tail}${log ? "; logarithmic count axis (one bin holds most values)" : ""}.`,
    xLabel: `${title.split(" ")[0]} (${unit}, bin start)`,
    yLabel: what,
    labels,
    stacked: true,
    datasets: ds,
    yUnit: what,
    yInteger: true,
    ...(log ? { yScale: "logarithmic" as const } : {}),
  };
}

/** True when one bin holds most of the values and others are non-empty: a log count axis shows the rest. */
function spiky(series: number[][]): boolean {
  const totals = series[0]!.map((_, i) => series.reduce((s, a) => s + (a[i] ?? 0), 0));
  const sum = totals.reduce((s, v) => s + v, 0);
  const max = Math.max(...totals);
  return sum > 0 && max > 0.5 * sum && totals.filter((v) => v > 0).length > 2 && sum - max >= 0.02 * sum;
}

export function percentileRows(all: Group, parts: Group[]): Cell[][] {
  const row = (g: Group): Cell[] => {
    const s = g.ms;
    if (s.length === 0) return [g.name, 0, null, null, null, null, null, null];
    let sum = 0;
    for (const v of s) sum += v;
    return [
      g.name,
      s.length,
      sum / s.length,
      quantile(s, 0.5),
      quantile(s, 0.9),
      quantile(s, 0.95),
      quantile(s, 0.99),
      s[s.length - 1]!,
    ];
  };
  return [row(all), ...(parts.length > 1 ? parts.map(row) : [])];
}

export const PCT_COLUMNS = (unit: string): string[] => [
  "",
  "n",
  `mean (${unit})`,
  `p50 (${unit})`,
  `p90 (${unit})`,
  `p95 (${unit})`,
  `p99 (${unit})`,
  `max (${unit})`,
];
export const PCT_RIGHT = [false, true, true, true, true, true, true, true];

function metricBlock(
  charts: ChartSet,
  key: string,
  title: string,
  what: string,
  all: Group,
  classes: Group[],
  lead: string,
): string {
  if (all.ms.length === 0)
    return `<h3>${esc(title)}</h3>${emptyNote(title, `No ${what} have a ${key.toUpperCase()} value in this run.`)}`;
  return (
    `<h3 id="lat-${key}">${esc(title)}</h3><p class="note">${lead}</p>` +
    `<div class="grid">${charts.figure(cdfChart(`${key}-cdf`, `${title} — CDF`, what, "ms", all, classes, "SLO class"))}${charts.figure(
      histChart(`${key}-hist`, `${title} — histogram`, what, "ms", all, classes),
    )}</div>` +
    table(PCT_COLUMNS("ms"), percentileRows(all, classes), { right: PCT_RIGHT })
  );
}

/** The per-token ITL distribution pooled per instance (the one the metrics blocks report). */
function perTokenItl(charts: ChartSet, d: RunReportData): string {
  const inst = d.itlPerToken;
  const merged = new Map<number, number>();
  for (const list of inst) for (const [v, c] of list) merged.set(v, (merged.get(v) ?? 0) + c);
  const vals = [...merged.keys()].sort((a, b) => a - b);
  const counts = vals.map((v) => merged.get(v)!);
  const total = counts.reduce((s, c) => s + c, 0);
  if (total === 0) return emptyNote("ITL per token", "No decode tokens were generated.");
  const ms = vals.map((v) => v * MS);
  const cdf: DatasetSpec[] = [];
  const a = weightedCdfPoints(ms, counts, 1);
  cdf.push({ label: `all tokens (n=${total})`, color: AGGREGATE_COLOR, x: a.x, y: a.y, width: 2.25, order: 0 });
  if (inst.length > 1 && inst.length <= 16) {
    inst.forEach((list, k) => {
      if (list.length === 0) return;
      const p = weightedCdfPoints(
        list.map(([v]) => v * MS),
        list.map(([, c]) => c),
        1,
      );
      cdf.push({ label: `instance_${k}`, color: paletteColor(k), x: p.x, y: p.y, width: 1.25, order: 1 });
    });
  }
  // Quantiles of the pooled distribution.
  const at = (p: number): number => {
    const rank = p * (total - 1);
    let cum = 0;
    for (let i = 0; i < ms.length; i++) {
      cum += counts[i]!;
      if (cum > rank) return ms[i]!;
    }
    return ms[ms.length - 1]!;
  };
  const p99 = at(0.99);
  // Histogram: expand counts through the bins without materializing every token.
  const bins = makeBins(quantileSample(ms, counts, total, at));
  const hist = binCounts(bins, ms, counts);
  const log = ms.length > 20 && ms[0]! > 0 && ms[ms.length - 1]! / at(0.5) > 100;
  const logCounts = spiky([hist]);
  return (
    `<div class="grid">${charts.figure({
      id: "itl-token-cdf",
      kind: "line",
      title: "ITL per token — CDF",
      note: `Gaps between consecutive output tokens, pooled over all requests${inst.length > 1 && inst.length <= 16 ? ", all and per instance" : ""}${
        log ? "; logarithmic x axis" : ""
      }. This is the distribution behind itl_*_ms. Dashed line: p99.`,
      xLabel: "ITL (ms)",
      yLabel: "fraction of tokens",
      xScale: log ? "logarithmic" : "linear",
      yPercent: true,
      yMin: 0,
      yMax: 1,
      ...(log ? {} : { xMin: 0 }),
      datasets: cdf,
      refLines: [{ axis: "x", value: p99, label: `p99 ${fmtShort(p99)} ms` }],
      xUnit: "ms",
    })}${charts.figure({
      id: "itl-token-hist",
      kind: "bar",
      title: "ITL per token — histogram",
      note: `Bins of ${fmtShort(bins.width)} ms${bins.overflowFrom !== null ? `; the last bar counts every gap ≥ ${fmtShort(bins.overflowFrom)} ms` : ""}${
        logCounts ? "; logarithmic count axis (one bin holds most tokens)" : ""
      }.`,
      xLabel: "ITL (ms, bin start)",
      yLabel: "tokens",
      labels: binLabels(bins, fmtShort),
      stacked: true,
      datasets: [{ label: "tokens", color: "#4e79a7", y: hist }],
      yUnit: "tokens",
      yInteger: true,
      ...(logCounts ? { yScale: "logarithmic" as const } : {}),
    })}</div>` +
    table(
      PCT_COLUMNS("ms"),
      [["all tokens", total, weightedMean(ms, counts), at(0.5), at(0.9), at(0.95), p99, ms[ms.length - 1]!]],
      {
        right: PCT_RIGHT,
      },
    )
  );
}

/** Sorted stand-in sample for choosing bins of a weighted distribution (quantiles at 0.1% steps). */
function quantileSample(ms: number[], counts: number[], total: number, at: (p: number) => number): Float64Array {
  if (total <= 2000) {
    const out: number[] = [];
    ms.forEach((v, i) => {
      for (let c = 0; c < counts[i]!; c++) out.push(v);
    });
    return Float64Array.from(out);
  }
  const out = new Float64Array(1001);
  for (let k = 0; k <= 1000; k++) out[k] = at(k / 1000);
  return out;
}

function weightedMean(ms: number[], counts: number[]): number {
  let s = 0;
  let n = 0;
  ms.forEach((v, i) => {
    s += v * counts[i]!;
    n += counts[i]!;
  });
  return n > 0 ? s / n : 0;
}

export function latencySection(charts: ChartSet, d: RunReportData): string {
  const r = d.requests;
  const ttft = groups(d, r.ttftUs);
  const e2e = groups(d, r.e2eUs);
  const itl = groups(d, r.itlUs);
  const classes =
    ttft.classes.length > 1
      ? `Requests fall into ${ttft.classes.length} SLO classes (${ttft.classes.map((g) => esc(g.name)).join(", ")}), shown beside the overall distribution.`
      : "All requests are in one SLO class.";
  return (
    `<p class="lead">All latencies in milliseconds of simulated time. ${classes}</p>` +
    metricBlock(
      charts,
      "ttft",
      "TTFT",
      "requests",
      ttft.all,
      ttft.classes,
      "Time to first token: arrival to the first output token (requests that got one, finished or not).",
    ) +
    `<h3 id="lat-itl">ITL</h3><p class="note">Inter-token latency. First the per-token distribution (every gap between two output tokens), then the mean ITL of each completed request, per SLO class.</p>` +
    perTokenItl(charts, d) +
    (itl.all.ms.length > 0
      ? `<div class="grid">${charts.figure(cdfChart("itl-req-cdf", "ITL per request — CDF", "requests", "ms", itl.all, itl.classes, "SLO class"))}${charts.figure(
          histChart("itl-req-hist", "ITL per request — histogram", "requests", "ms", itl.all, itl.classes),
        )}</div>` + table(PCT_COLUMNS("ms"), percentileRows(itl.all, itl.classes), { right: PCT_RIGHT })
      : "") +
    metricBlock(
      charts,
      "e2e",
      "E2E",
      "requests",
      e2e.all,
      e2e.classes,
      "End-to-end latency: arrival to the last output token (completed requests).",
    )
  );
}

// The ratios section of a sweep report: one horizontal bar chart per ratio and metric, drawn
// from 1 and coloured by verdict, then the ratio table.

import type { SweepReport } from "../experiment/report.js";
import { reportTables } from "../experiment/render.js";
import type { DatasetSpec } from "./chartSpec.js";
import { table, type Cell, type ChartSet } from "./html.js";
import type { SweepReportData } from "./sweepData.js";

const VERDICT_COLORS: Record<string, string> = {
  significant: "#4e79a7",
  weak: "#76b7b2",
  mixed: "#edc948",
  inconclusive: "#f28e2b",
  equivalent: "#bab0ac",
  "n/a": "#d0d7de",
};

/**
 * Short row label of a ratio: "a=1,b=2" ÷ "a=3,b=2" → "1 ÷ 3 (b=2)" when one axis differs (its
 * name goes to `axes`), else the differing parts in full.
 */
function ratioLabel(num: string, den: string, axes: Set<string>): string {
  const a = num.split(",");
  const b = den.split(",");
  if (a.length !== b.length) return `${num} ÷ ${den}`;
  const same = a.filter((p, i) => p === b[i]);
  const da = a.filter((p, i) => p !== b[i]);
  const db = b.filter((p, i) => p !== a[i]);
  const ctx = same.length > 0 ? ` (${same.join(",")})` : "";
  const na = da.length === 1 ? /^([^=]+)=(.*)$/.exec(da[0]!) : null;
  const nb = db.length === 1 ? /^([^=]+)=(.*)$/.exec(db[0]!) : null;
  if (na !== null && nb !== null && na[1] === nb[1]) {
    axes.add(na[1]!);
    return `${na[2]} ÷ ${nb[2]}${ctx}`;
  }
  return `${da.join(",")} ÷ ${db.join(",")}${ctx}`;
}

type RatioRow = SweepReport["ratios"][number];

/** The verdict a row is coloured by ("n/a" for one without a colour). */
function verdictOf(row: RatioRow): string {
  return VERDICT_COLORS[row.verdict] !== undefined ? row.verdict : "n/a";
}

/** The chart of one ratio and metric: a bar per numerator/denominator pair, one dataset per verdict. */
function ratioChart(charts: ChartSet, rows: RatioRow[]): string {
  const first = rows[0]!;
  const axes = new Set<string>();
  const labels = rows.map((x) => ratioLabel(x.numerator, x.denominator, axes));
  const present = Object.keys(VERDICT_COLORS).filter((v) => rows.some((x) => verdictOf(x) === v));
  const ds: DatasetSpec[] = present.map((v) => ({
    label: v,
    color: VERDICT_COLORS[v]!,
    y: rows.map((x) => (verdictOf(x) === v ? x.mean : null)),
    whiskers: rows.map((x) => (verdictOf(x) === v && x.min !== null && x.max !== null ? [x.min, x.max] : null)),
    notes: rows.map(
      (x) =>
        `${x.above_1} seeds > 1, ${x.below_1} < 1; per seed ${x.per_seed.map((p) => (p.baseline_zero === true ? "n/a (baseline 0)" : p.value === null ? "-" : p.value.toFixed(3))).join(" ")}`,
    ),
    base: 1,
  }));
  const means = rows.map((x) => x.mean).filter((v): v is number => v !== null);
  const log = means.length > 1 && means.every((v) => v > 0) && Math.max(...means, 1) / Math.min(...means, 1) > 20;
  return charts.figure({
    id: `ratio-${first.metric}-${first.ratio}`,
    kind: "bar",
    horizontal: true,
    title: `${first.ratio}: ${first.metric}`,
    note: `Mean of the per-seed ratios ${axes.size === 1 ? `(${[...axes][0]}) ` : ""}numerator ÷ denominator (same seed), drawn from 1 (no change, dashed); whiskers: min and max; colour: verdict${log ? "; logarithmic axis" : ""}.`,
    xLabel: "",
    yLabel: `ratio of ${first.metric}`,
    labels,
    datasets: ds,
    refLines: [{ axis: "x", value: 1 }],
    ...(log ? { yScale: "logarithmic" as const } : {}),
    // Two-line labels ("1 ÷ 2 (rate=20)") need taller rows.
    height: Math.max(170, 90 + rows.length * (labels.some((l) => l.length > 18 && l.includes(" (")) ? 36 : 26)),
    legend: true,
    allLabels: true,
  });
}

export function ratioSection(charts: ChartSet, d: SweepReportData): string {
  const r = d.report;
  if (r.ratios.length === 0) return `<p class="lead">The plan defines no ratios and no baseline.</p>`;
  const groups = new Map<string, RatioRow[]>();
  for (const row of r.ratios) {
    const key = `${row.ratio}\u0000${row.metric}`;
    const list = groups.get(key) ?? [];
    list.push(row);
    groups.set(key, list);
  }
  const figs = [...groups.values()].map((rows) => ratioChart(charts, rows));
  const t = reportTables(r, false).find((x) => x.id === "ratios");
  return (
    `<p class="lead">Ratios of a metric between two configurations run with the same seed. Verdicts: <b>equivalent</b> (every seed within 5%), <b>n/a (baseline 0)</b> (a seed's denominator is 0 and its numerator is not: no ratio), <b>significant</b> (every seed changes by more than 20% in the same direction), <b>weak</b> (same direction, 10–20%), <b>inconclusive</b> (some seed changes by less than 10%), <b>mixed</b> (directions differ).</p>` +
    `<div class="grid">${figs.join("")}</div>` +
    (t !== undefined ? `<h3>Ratio table</h3>${table(t.columns, t.rows as Cell[][], { right: t.right })}` : "")
  );
}

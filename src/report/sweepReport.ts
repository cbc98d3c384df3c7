// The HTML report of a sweep (`blis sweep PLAN --out DIR --report`): checks, grouped bars of every
// tabulated metric with the seed spread, a Pareto scatter of two metrics, the ratios, and every
// table of the text report.

import path from "node:path";
import type { SweepReport } from "../experiment/report.js";
import type { SweepResult } from "../experiment/sweep.js";
import { reportTables } from "../experiment/render.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { UserError } from "../util/errors.js";
import { MUTED_COLOR, fmtShort, paddedRange, paletteColor, type ChartSpec, type DatasetSpec } from "./chartSpec.js";
import { ChartSet, badge, cards, emptyNote, esc, renderPage, section, table, type Cell } from "./html.js";
import { higherIsBetter, metricLabel, metricUnit } from "./metricInfo.js";
import { sweepReportData, type SweepReportData } from "./sweepData.js";
import { DEFAULT_PARETO } from "./planOptions.js";

interface Layout {
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
function layoutOf(r: SweepReport): Layout {
  const coords = gridCoords(r);
  const place = new Map<string, [number, number]>();
  if (coords === null || r.axes.length === 1) {
    r.configs.forEach((c, i) => place.set(c, [i, 0]));
    // One axis: its values label the bars and its name titles the axis.
    const categories = coords !== null ? coords.map((k) => r.axes[0]!.values[k[0]!]!) : [...r.configs];
    return { categories, series: ["mean over seeds"], seriesAxis: "", xTitle: coords !== null ? r.axes[0]!.name : "configuration", place };
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
      others.length === 1 ? r.axes[others[0]!]!.values[coords[i]![others[0]!]!]! : others.map((k) => `${r.axes[k]!.name}=${r.axes[k]!.values[coords[i]![k]!]}`).join(",");
    let ci = catIndex.get(key);
    if (ci === undefined) {
      ci = categories.length;
      categories.push(key);
      catIndex.set(key, ci);
    }
    place.set(c, [ci, coords[i]![s]!]);
  });
  const ax = r.axes[s]!;
  return { categories, series: ax.values.map((v) => `${ax.name}=${v}`), seriesAxis: ax.name, xTitle: others.map((k) => r.axes[k]!.name).join(", "), place };
}

/** Per-seed values of a metric: from the tables, or from the extra values saved for the Pareto plot. */
function perSeed(d: SweepReportData, metric: string): Map<string, (number | null)[]> {
  const r = d.report;
  const out = new Map<string, (number | null)[]>(r.configs.map((c) => [c, r.seeds.map(() => null)]));
  if (r.metrics.includes(metric)) {
    for (const row of r.per_seed) {
      const list = out.get(row.config);
      const i = r.seeds.indexOf(row.seed);
      if (list !== undefined && i >= 0) list[i] = row.values[metric] ?? null;
    }
  } else {
    for (const e of d.extra) {
      if (e.metric !== metric) continue;
      const list = out.get(e.config);
      const i = r.seeds.indexOf(e.seed);
      if (list !== undefined && i >= 0) list[i] = e.value;
    }
  }
  return out;
}

interface Stat {
  mean: number;
  min: number;
  max: number;
  n: number;
}

function stat(vs: (number | null)[]): Stat | null {
  const v = vs.filter((x): x is number => x !== null && Number.isFinite(x));
  if (v.length === 0) return null;
  return { mean: v.reduce((s, x) => s + x, 0) / v.length, min: Math.min(...v), max: Math.max(...v), n: v.length };
}

/** A log axis when positive values span more than ~1.5 orders of magnitude. */
function wantsLog(values: number[]): boolean {
  const pos = values.filter((v) => v > 0);
  return pos.length === values.length && pos.length > 1 && Math.max(...pos) / Math.min(...pos) > 30;
}

function metricChart(d: SweepReportData, layout: Layout, metric: string): string | ChartSpec {
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

interface ParetoCell {
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

function paretoSection(charts: ChartSet, d: SweepReportData): string {
  const [mx, my] = d.pareto;
  const cells = paretoCells(d);
  const dir = (m: string): string => (higherIsBetter(m) ? "higher" : "lower");
  const lead =
    `Each point is one configuration (mean over seeds) of <code>${esc(mx)}</code> (x, ${dir(mx)} is better) against <code>${esc(my)}</code> (y, ${dir(my)} is better). ` +
    `Non-dominated configurations — no other is at least as good on both and better on one — are labelled and joined by the dashed front. ` +
    `Choose the metrics with <code>report: {pareto: [x, y]}</code> in the plan.`;
  if (cells.length === 0) return `<p class="lead">${lead}</p>${emptyNote("Pareto front", `No configuration has valid values of both ${mx} and ${my}.`)}`;
  const front = cells.filter((c) => c.front).sort((a, b) => a.x.mean - b.x.mean);
  const rest = cells.filter((c) => !c.front);
  const logX = wantsLog(cells.map((c) => c.x.mean));
  const logY = wantsLog(cells.map((c) => c.y.mean));
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
  // Individual seeds, off by default (legend toggles them).
  const sx = perSeed(d, mx);
  const sy = perSeed(d, my);
  const px: number[] = [];
  const py: number[] = [];
  const pn: string[] = [];
  for (const c of d.report.configs) {
    d.report.seeds.forEach((seed, i) => {
      const a = sx.get(c)?.[i];
      const b = sy.get(c)?.[i];
      if (a !== null && a !== undefined && b !== null && b !== undefined) {
        px.push(a);
        py.push(b);
        pn.push(`${c} seed ${seed}`);
      }
    });
  }
  if (d.report.seeds.length > 1 && px.length > 0) {
    ds.push({ label: "individual seeds", color: "#f28e2b", type: "scatter", x: px, y: py, radius: 2.5, pointStyle: "crossRot", notes: pn, hidden: true, order: 3 });
  }
  const xr = paddedRange([...cells.map((c) => c.x.mean), ...px], logX);
  const yr = paddedRange([...cells.map((c) => c.y.mean), ...py], logY);
  const spec: ChartSpec = {
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
  const rows: Cell[][] = [...front, ...rest].map((c) => [
    c.config,
    c.x.mean,
    c.x.min === c.x.max ? null : `${fmtShort(c.x.min)} – ${fmtShort(c.x.max)}`,
    c.y.mean,
    c.y.min === c.y.max ? null : `${fmtShort(c.y.min)} – ${fmtShort(c.y.max)}`,
    c.front ? { html: '<span class="badge PASS">non-dominated</span>' } : { html: '<span class="muted">dominated</span>' },
  ]);
  return (
    `<p class="lead">${lead}</p>` +
    `<div class="pareto">${charts.figure(spec)}</div>` +
    table([`configuration`, `${mx} mean`, `${mx} seed range`, `${my} mean`, `${my} seed range`, ""], rows, { right: [false, true, true, true, true, false] })
  );
}

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

function ratioSection(charts: ChartSet, d: SweepReportData): string {
  const r = d.report;
  if (r.ratios.length === 0) return `<p class="lead">The plan defines no ratios and no baseline.</p>`;
  const groups = new Map<string, typeof r.ratios>();
  for (const row of r.ratios) {
    const key = `${row.ratio}\u0000${row.metric}`;
    const list = groups.get(key) ?? [];
    list.push(row);
    groups.set(key, list);
  }
  const verdicts = Object.keys(VERDICT_COLORS);
  const figs: string[] = [];
  for (const rows of groups.values()) {
    const first = rows[0]!;
    const axes = new Set<string>();
    const labels = rows.map((x) => ratioLabel(x.numerator, x.denominator, axes));
    const present = verdicts.filter((v) => rows.some((x) => (VERDICT_COLORS[x.verdict] !== undefined ? x.verdict : "n/a") === v));
    const ds: DatasetSpec[] = present.map((v) => ({
      label: v,
      color: VERDICT_COLORS[v]!,
      y: rows.map((x) => ((VERDICT_COLORS[x.verdict] !== undefined ? x.verdict : "n/a") === v ? x.mean : null)),
      whiskers: rows.map((x) => ((VERDICT_COLORS[x.verdict] !== undefined ? x.verdict : "n/a") === v && x.min !== null && x.max !== null ? [x.min, x.max] : null)),
      notes: rows.map((x) => `${x.above_1} seeds > 1, ${x.below_1} < 1; per seed ${x.per_seed.map((p) => (p.value === null ? "-" : p.value.toFixed(3))).join(" ")}`),
      base: 1,
    }));
    const means = rows.map((x) => x.mean).filter((v): v is number => v !== null);
    const log = means.length > 1 && means.every((v) => v > 0) && Math.max(...means, 1) / Math.min(...means, 1) > 20;
    figs.push(
      charts.figure({
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
        height: Math.max(170, 90 + rows.length * (labels.some((l) => l.length > 18 && l.includes(" (")) ? 36 : 26)),
        legend: true,
        allLabels: true,
      }),
    );
  }
  const t = reportTables(r, false).find((x) => x.id === "ratios");
  return (
    `<p class="lead">Ratios of a metric between two configurations run with the same seed. Verdicts: <b>equivalent</b> (every seed within 5%), <b>significant</b> (every seed changes by more than 20% in the same direction), <b>weak</b> (same direction, 10–20%), <b>inconclusive</b> (some seed changes by less than 10%), <b>mixed</b> (directions differ).</p>` +
    `<div class="grid">${figs.join("")}</div>` +
    (t !== undefined ? `<h3>Ratio table</h3>${table(t.columns, t.rows as Cell[][], { right: t.right })}` : "")
  );
}

const RESULT_COLUMNS = new Set(["result", "blocks", "Σ instances", "pipeline"]);

function tablesSection(r: SweepReport): string {
  let html = "";
  for (const t of reportTables(r, false)) {
    if (t.id === "ratios" || t.id === "checks") continue;
    const rows: Cell[][] = [];
    const rowClass: (string | null)[] = [];
    let group: string | null = null;
    for (const row of t.rows) {
      const cells: Cell[] = row.map((c, i) => (RESULT_COLUMNS.has(t.columns[i]!) && typeof c === "string" ? { html: badge(c) } : c));
      if (t.groupBy !== undefined) {
        const g = String(row[t.groupBy] ?? "");
        if (g !== group) {
          rows.push([{ text: g }, ...t.columns.slice(1).map(() => "")]);
          rowClass.push("group");
          group = g;
        }
        cells[t.groupBy] = "";
      }
      rows.push(cells);
      rowClass.push(null);
    }
    // Columns that are empty in every row (e.g. "detail" when every check passed) are left out.
    const keep = t.columns.map((_, i) => i === 0 || t.rows.some((row) => row[i] !== "" && row[i] !== null && row[i] !== undefined));
    const pick = <T>(xs: T[]): T[] => xs.filter((_, i) => keep[i]);
    const wrap = pick(t.columns.map((c) => c === "detail" || c === "error" || c === "values"));
    const body = table(pick(t.columns), rows.map(pick), { right: pick(t.right), rowClass, wrap });
    const head = `<h3 id="table-${esc(t.id)}">${esc(t.title)}</h3>${t.note !== undefined ? `<p class="note">${esc(t.note)}</p>` : ""}`;
    html += t.id === "summary" ? `${head}<details><summary>Mean, min and max of every metric per configuration (${t.rows.length} rows)</summary>${body}</details>` : head + body;
  }
  return html;
}

function overview(r: SweepReport): string {
  const passed = r.checks.filter((c) => c.result === "PASS").length;
  const failed = r.checks.filter((c) => c.result === "FAIL").length;
  let html = cards([
    { label: "configurations", value: String(r.configs.length) },
    { label: "seeds", value: String(r.seeds.length), title: r.seeds.join(", ") },
    { label: "runs ok / expected", value: `${r.runs.ok} / ${r.runs.expected}` },
    { label: "failed / not run", value: `${r.runs.failed} / ${r.runs.missing}` },
    { label: "checks passed", value: `${passed} / ${r.checks.length}` },
    { label: "result", value: r.checks.length === 0 ? "no checks" : failed === 0 && r.exit_status === 0 ? "all checks pass" : "a check failed" },
  ]);
  if (r.axes.length > 0) {
    html += table(
      ["axis", "values"],
      r.axes.map((a) => [a.name, { text: a.values.join(", "), cls: "wrap" }]),
      { wrap: [false, true] },
    );
  }
  if (r.checks.length > 0) html += `<h3>Checks</h3>${table(["check", "result"], r.checks.map((c) => [{ text: c.check, cls: "wrap" }, { html: badge(c.result) }]), { wrap: [true, false] })}`;
  else html += `<p class="note">The plan requests no checks.</p>`;
  if (r.warnings.length > 0) html += `<h3>Warnings</h3><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>`;
  if (r.failures.length > 0) html += `<p class="note">${r.failures.length} run(s) failed and are left out of every aggregate (see the failed-runs table).</p>`;
  return html;
}

export function renderSweepReport(d: SweepReportData): string {
  const r = d.report;
  const charts = new ChartSet();
  const layout = layoutOf(r);
  const bars = r.metrics.map((m) => {
    const spec = metricChart(d, layout, m);
    return typeof spec === "string" ? emptyNote(m, spec) : charts.figure(spec);
  });
  const barsLead =
    `One chart per metric of the plan. ` +
    (layout.seriesAxis !== "" ? `Bars are grouped by ${esc(layout.xTitle)} and coloured by <b>${esc(layout.seriesAxis)}</b>. ` : "") +
    `Hover a bar for its exact mean, seed range and number of valid seeds.`;
  const body = [
    section("overview", "Overview", "", overview(r)),
    section("metrics", "Metrics by configuration", barsLead, `<div class="grid">${bars.join("")}</div>`),
    section("pareto", "Pareto front", "", paretoSection(charts, d)),
    section("ratios", "Ratios", "", ratioSection(charts, d)),
    section("tables", "Tables", "The tables of the text report (<code>tables.md</code>), values as printed there.", tablesSection(r)),
  ].join("\n");
  const subtitle =
    `${r.configs.length} configurations × ${r.seeds.length} seeds (${r.seeds.join(", ")}) · ${r.runs.ok} of ${r.runs.expected} runs ok` +
    ` · ${r.exit_status === 0 ? "every requested check passed" : "<b>a check failed</b>"}`;
  return renderPage({
    title: `BLIS sweep report: ${r.name}`,
    subtitle,
    nav: [
      { id: "overview", label: "Overview" },
      { id: "metrics", label: "Metrics" },
      { id: "pareto", label: "Pareto" },
      { id: "ratios", label: "Ratios" },
      { id: "tables", label: "Tables" },
    ],
    body,
    charts,
    footer: `Generated by ${esc(d.tool)} from the sweep's results; times are simulated, not measured.`,
  });
}

/** Writes DIR/report.html and DIR/report.json for a finished sweep; returns the HTML path. */
export function writeSweepReport(res: SweepResult, pareto: [string, string] = DEFAULT_PARETO): string {
  if (res.outDir === null) throw new UserError("sweep --report needs --out DIR (the report is written to DIR/report.html)");
  const data = sweepReportData(res, pareto);
  const html = path.join(res.outDir, "report.html");
  try {
    writeFileAtomic(path.join(res.outDir, "report.json"), JSON.stringify(data) + "\n");
    writeFileAtomic(html, renderSweepReport(data));
  } catch (e) {
    throw new UserError(`writing report ${html}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return html;
}

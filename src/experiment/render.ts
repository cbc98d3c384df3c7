// Rendering of a sweep report: fixed-width text, markdown, CSV and JSON.

import { columnFormat, rawNum } from "./format.js";
import { ZERO_BASELINE } from "./reportRatios.js";
import { fatalFailedRuns, type SweepReport } from "./report.js";

type Cell = string | number | null;

export interface Table {
  id: string;
  title: string;
  columns: string[];
  /** Right-aligned (numeric) columns. */
  right: boolean[];
  rows: Cell[][];
  /** Column whose value splits the table into sub-tables in text and markdown. */
  groupBy?: number;
  /** A line printed under the title. */
  note?: string;
}

export type OutputFormat = "text" | "md" | "csv" | "json";

type NumberFormat = (v: number | null) => string;

/** The formatter of one column: full precision for CSV; in text, integers when every value of
 * the column is one, else decimals throughout. */
function columnFormatter(forCsv: boolean): (vs: (number | null)[]) => NumberFormat {
  return (vs) => (forCsv ? rawNum : columnFormat(vs));
}

/** The tables of a report. CSV variants keep full precision and split compound cells. */
export function reportTables(r: SweepReport, forCsv: boolean): Table[] {
  const tables = [
    perSeedTable(r, forCsv),
    summaryMeansTable(r, forCsv),
    summaryTable(r, forCsv),
    ratiosTable(r, forCsv),
    monotonicTable(r, forCsv),
    conservationTable(r),
    determinismTable(r),
    failuresTable(r),
    checksTable(r),
  ];
  // Optional tables are null when the plan has no such check or there is nothing to list.
  return tables.filter((t): t is Table => t !== null);
}

function perSeedTable(r: SweepReport, forCsv: boolean): Table {
  const m = r.metrics;
  const fmtFor = columnFormatter(forCsv);
  const perSeedFmt = m.map((k) => fmtFor(r.per_seed.map((p) => p.values[k] ?? null)));
  return {
    id: "per_seed",
    title: "Per-seed results",
    columns: ["config", "seed", "status", ...m],
    right: [false, true, false, ...m.map(() => true)],
    rows: r.per_seed.map((p) => [p.config, p.seed, p.status, ...m.map((k, i) => perSeedFmt[i]!(p.values[k] ?? null))]),
  };
}

function summaryMeansTable(r: SweepReport, forCsv: boolean): Table {
  const m = r.metrics;
  const fmtFor = columnFormatter(forCsv);
  const okRuns = new Map<string, number>();
  for (const p of r.per_seed) okRuns.set(p.config, (okRuns.get(p.config) ?? 0) + (p.status === "ok" ? 1 : 0));
  const meanOf = new Map(r.summary.map((s) => [`${s.config}\u0000${s.metric}`, s]));
  const meanFmt = m.map((k) => fmtFor(r.summary.filter((s) => s.metric === k).map((s) => s.mean)));
  return {
    id: "summary_means",
    title: "Summary: mean over valid seeds",
    columns: ["config", forCsv ? "ok_runs" : "ok/n", ...(forCsv ? ["n"] : []), ...m],
    right: [false, true, ...(forCsv ? [true] : []), ...m.map(() => true)],
    rows: r.configs.map((c) => [
      c,
      forCsv ? okRuns.get(c)! : `${okRuns.get(c)!}/${r.seeds.length}`,
      ...(forCsv ? [r.seeds.length] : []),
      ...m.map((k, i) => meanFmt[i]!(meanOf.get(`${c}\u0000${k}`)?.mean ?? null)),
    ]),
  };
}

function summaryTable(r: SweepReport, forCsv: boolean): Table {
  const m = r.metrics;
  const fmtFor = columnFormatter(forCsv);
  const byMetric = [...r.summary].sort(
    (a, b) => m.indexOf(a.metric) - m.indexOf(b.metric) || r.configs.indexOf(a.config) - r.configs.indexOf(b.config),
  );
  return {
    id: "summary",
    title: "Summary",
    columns: ["metric", "config", "mean", "min", "max", ...(forCsv ? ["n_valid", "n"] : ["n_valid/n"])],
    right: [false, false, true, true, true, true, true],
    rows: byMetric.map((s) => {
      const f = fmtFor(r.summary.filter((x) => x.metric === s.metric).flatMap((x) => [x.mean, x.min, x.max]));
      return [
        s.metric,
        s.config,
        f(s.mean),
        f(s.min),
        f(s.max),
        ...(forCsv ? [s.n_valid, s.n] : [`${s.n_valid}/${s.n}`]),
      ];
    }),
    groupBy: 0,
  };
}

function ratiosTable(r: SweepReport, forCsv: boolean): Table | null {
  if (r.ratios.length === 0) return null;
  const fmt = forCsv ? rawNum : fmtRatio;
  return {
    id: "ratios",
    title: "Ratios (per-seed value / max(denominator value, 0.001), same seed)",
    columns: [
      "ratio",
      "metric",
      "numerator",
      "denominator",
      "mean",
      "min",
      "max",
      ">1",
      "<1",
      "verdict",
      ...(forCsv ? r.seeds.map((s) => `seed_${s}`) : ["per-seed"]),
    ],
    right: [
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      true,
      false,
      ...(forCsv ? r.seeds.map(() => true) : [false]),
    ],
    rows: r.ratios.map((x) => [
      x.ratio,
      x.metric,
      x.numerator,
      x.denominator,
      x.mean === null && x.per_seed.some((p) => p.baseline_zero === true) ? ZERO_BASELINE : fmt(x.mean),
      fmt(x.min),
      fmt(x.max),
      x.above_1,
      x.below_1,
      x.verdict,
      ...(forCsv
        ? x.per_seed.map((p) => rawNum(p.value))
        : [x.per_seed.map((p) => (p.baseline_zero === true ? ZERO_BASELINE : fmtRatio(p.value))).join(" ")]),
    ]),
  };
}

function monotonicTable(r: SweepReport, forCsv: boolean): Table | null {
  if (r.monotonic.length === 0) return null;
  const fmtFor = columnFormatter(forCsv);
  return {
    id: "monotonic",
    title: "Monotonicity",
    columns: ["check", "group", "series", "values", "result", "first inversion"],
    right: [false, false, false, false, false, false],
    rows: r.monotonic.flatMap((c) =>
      c.rows.map((x) => [
        c.check,
        x.group,
        x.series,
        x.points
          .map((p) => `${p.axis_value}:${fmtFor(x.points.map((q) => q.value))(p.value)}`)
          .join(forCsv ? ";" : " "),
        x.result,
        x.first_inversion,
      ]),
    ),
  };
}

function conservationTable(r: SweepReport): Table | null {
  if (r.conservation === null) return null;
  return {
    id: "conservation",
    title: `Conservation: ${r.conservation.result}`,
    note: "injected == completed + still_queued + still_running + dropped_unservable (each instance and the cluster); Σ instance injected == cluster injected (+ decode sub-requests under PD); injected + rejected == generated when every request arrived before the horizon",
    columns: [
      "config",
      "seed",
      "status",
      "generated",
      "injected",
      "completed",
      "queued",
      "running",
      "dropped",
      "rejected",
      "blocks",
      "Σ instances",
      "pipeline",
      "result",
      "detail",
    ],
    right: [false, true, false, true, true, true, true, true, true, true, false, false, false, false, false],
    rows: r.conservation.rows.map((x) => [
      x.config,
      x.seed,
      x.status,
      x.generated,
      x.injected,
      x.completed,
      x.still_queued,
      x.still_running,
      x.dropped_unservable,
      x.rejected,
      x.blocks,
      x.instance_sum,
      x.pipeline,
      x.result,
      x.detail,
    ]),
  };
}

function determinismTable(r: SweepReport): Table | null {
  if (r.determinism === null) return null;
  return {
    id: "determinism",
    title: `Determinism: ${r.determinism.result}`,
    note: "each run repeated; stdout must be byte-identical",
    columns: ["config", "seed", "result", "detail"],
    right: [false, true, false, false],
    rows: r.determinism.rows.map((x) => [x.config, x.seed, x.result, x.detail]),
  };
}

function failuresTable(r: SweepReport): Table | null {
  if (r.failures.length === 0) return null;
  return {
    id: "failures",
    title: "Failed runs (excluded from every aggregate)",
    columns: ["config", "seed", "run", "status", "error"],
    right: [false, true, true, false, false],
    rows: r.failures.map((f) => [f.config, f.seed, f.run, f.status, f.error]),
  };
}

function checksTable(r: SweepReport): Table {
  return {
    id: "checks",
    title: "Checks",
    columns: ["check", "result"],
    right: [false, false],
    rows: r.checks.map((c) => [c.check, c.result]),
  };
}

function fmtRatio(v: number | null): string {
  return v === null ? "-" : v.toFixed(3);
}

function cellText(c: Cell): string {
  return c === null ? "-" : String(c);
}

function headline(r: SweepReport): string[] {
  const reps = r.determinism !== null ? " × 2 (determinism)" : "";
  return [
    `${r.configs.length} configurations × ${r.seeds.length} seeds (${r.seeds.join(", ")})${reps} = ${r.runs.expected} runs; ` +
      `finished ${r.runs.finished}: ${r.runs.ok} ok, ${r.runs.failed} failed` +
      (r.runs.missing > 0 ? `, ${r.runs.missing} not run` : ""),
  ];
}

function footer(r: SweepReport): string {
  const runs = fatalFailedRuns(r);
  const runsText = `${runs} of ${r.runs.finished} runs FAILED`;
  if (r.exit_status === 1) return `Result: a check FAILED${runs > 0 ? ` and ${runsText}` : ""} (exit status 1)`;
  if (runs > 0) return `Result: ${runsText} (exit status 1)`;
  const n = r.runs.failed;
  const allowed = n > 0 ? `; ${n} failed run${n === 1 ? "" : "s"} allowed by allow_failures` : "";
  return `Result: every requested check passed${allowed} (exit status 0)`;
}

function splitGroups(t: Table): { sub: string; rows: Cell[][] }[] {
  if (t.groupBy === undefined) return [{ sub: "", rows: t.rows }];
  const out: { sub: string; rows: Cell[][] }[] = [];
  for (const row of t.rows) {
    const key = cellText(row[t.groupBy]!);
    const last = out[out.length - 1];
    if (last !== undefined && last.sub === key) last.rows.push(row);
    else out.push({ sub: key, rows: [row] });
  }
  return out;
}

function dropColumn<T>(xs: T[], i: number | undefined): T[] {
  return i === undefined ? xs : xs.filter((_, k) => k !== i);
}

function textTable(columns: string[], right: boolean[], rows: Cell[][]): string {
  const cells = rows.map((r) => r.map(cellText));
  const w = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (xs: string[]): string =>
    xs
      .map((x, i) => (right[i] ? x.padStart(w[i]!) : i === xs.length - 1 ? x : x.padEnd(w[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns), line(w.map((n) => "-".repeat(n))), ...cells.map(line)].join("\n") + "\n";
}

export function renderText(r: SweepReport): string {
  let out = `=== Sweep: ${r.name} ===\n${headline(r).join("\n")}\n`;
  for (const w of r.warnings) out += `warning: ${w}\n`;
  for (const t of reportTables(r, false)) {
    for (const g of splitGroups(t)) {
      out += `\n--- ${t.title}${g.sub !== "" ? `: ${g.sub}` : ""} ---\n`;
      if (t.note !== undefined && (g.sub === "" || g === splitGroups(t)[0])) out += `(${t.note})\n`;
      out += textTable(
        dropColumn(t.columns, t.groupBy),
        dropColumn(t.right, t.groupBy),
        g.rows.map((x) => dropColumn(x, t.groupBy)),
      );
    }
  }
  return out + `\n${footer(r)}\n`;
}

function mdEscape(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export function renderMarkdown(r: SweepReport): string {
  let out = `# Sweep: ${mdEscape(r.name)}\n\n${headline(r).join("\n")}\n`;
  if (r.warnings.length > 0) out += "\n" + r.warnings.map((w) => `- warning: ${mdEscape(w)}`).join("\n") + "\n";
  for (const t of reportTables(r, false)) {
    for (const g of splitGroups(t)) {
      out += `\n## ${mdEscape(t.title)}${g.sub !== "" ? `: ${mdEscape(g.sub)}` : ""}\n\n`;
      if (t.note !== undefined && (g.sub === "" || g === splitGroups(t)[0])) out += `${mdEscape(t.note)}\n\n`;
      const cols = dropColumn(t.columns, t.groupBy);
      const right = dropColumn(t.right, t.groupBy);
      out += `| ${cols.map(mdEscape).join(" | ")} |\n`;
      out += `| ${right.map((x) => (x ? "---:" : ":---")).join(" | ")} |\n`;
      for (const row of g.rows)
        out += `| ${dropColumn(row, t.groupBy)
          .map((c) => mdEscape(cellText(c)))
          .join(" | ")} |\n`;
    }
  }
  return out + `\n${footer(r)}\n`;
}

function csvField(c: Cell): string {
  const s = c === null ? "" : String(c);
  return /[",\n\r]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsvTable(t: Table): string {
  return [t.columns, ...t.rows].map((row) => row.map(csvField).join(",")).join("\n") + "\n";
}

/** Every table as a CSV block preceded by `# <table id>`, blocks separated by a blank line. */
export function renderCsv(r: SweepReport): string {
  return reportTables(r, true)
    .map((t) => `# ${t.id}\n${renderCsvTable(t)}`)
    .join("\n");
}

export function renderJson(r: SweepReport): string {
  return JSON.stringify(r, null, 2) + "\n";
}

export function renderReport(r: SweepReport, format: OutputFormat): string {
  switch (format) {
    case "text":
      return renderText(r);
    case "md":
      return renderMarkdown(r);
    case "csv":
      return renderCsv(r);
    case "json":
      return renderJson(r);
  }
}

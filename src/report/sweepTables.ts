// The overview (counts, axes, checks) and the tables of the text report, as HTML.

import type { SweepReport } from "../experiment/report.js";
import { reportTables } from "../experiment/render.js";
import { badge, cards, esc, table, type Cell } from "./html.js";

const RESULT_COLUMNS = new Set(["result", "blocks", "Σ instances", "pipeline"]);

export function tablesSection(r: SweepReport): string {
  let html = "";
  for (const t of reportTables(r, false)) {
    if (t.id === "ratios" || t.id === "checks") continue;
    const rows: Cell[][] = [];
    const rowClass: (string | null)[] = [];
    let group: string | null = null;
    for (const row of t.rows) {
      const cells: Cell[] = row.map((c, i) =>
        RESULT_COLUMNS.has(t.columns[i]!) && typeof c === "string" ? { html: badge(c) } : c,
      );
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
    const keep = t.columns.map(
      (_, i) => i === 0 || t.rows.some((row) => row[i] !== "" && row[i] !== null && row[i] !== undefined),
    );
    const pick = <T>(xs: T[]): T[] => xs.filter((_, i) => keep[i]);
    const wrap = pick(t.columns.map((c) => c === "detail" || c === "error" || c === "values"));
    const body = table(pick(t.columns), rows.map(pick), { right: pick(t.right), rowClass, wrap });
    const head = `<h3 id="table-${esc(t.id)}">${esc(t.title)}</h3>${t.note !== undefined ? `<p class="note">${esc(t.note)}</p>` : ""}`;
    html +=
      t.id === "summary"
        ? `${head}<details><summary>Mean, min and max of every metric per configuration (${t.rows.length} rows)</summary>${body}</details>`
        : head + body;
  }
  return html;
}

export function overview(r: SweepReport): string {
  const passed = r.checks.filter((c) => c.result === "PASS").length;
  const failed = r.checks.filter((c) => c.result === "FAIL").length;
  let html = cards([
    { label: "configurations", value: String(r.configs.length) },
    { label: "seeds", value: String(r.seeds.length), title: r.seeds.join(", ") },
    { label: "runs ok / expected", value: `${r.runs.ok} / ${r.runs.expected}` },
    { label: "failed / not run", value: `${r.runs.failed} / ${r.runs.missing}` },
    { label: "checks passed", value: `${passed} / ${r.checks.length}` },
    {
      label: "result",
      value:
        r.checks.length === 0
          ? "no checks"
          : failed === 0 && r.exit_status === 0
            ? "all checks pass"
            : "a check failed",
    },
  ]);
  if (r.axes.length > 0) {
    html += table(
      ["axis", "values"],
      r.axes.map((a) => [a.name, { text: a.values.join(", "), cls: "wrap" }]),
      { wrap: [false, true] },
    );
  }
  if (r.checks.length > 0)
    html += `<h3>Checks</h3>${table(
      ["check", "result"],
      r.checks.map((c) => [{ text: c.check, cls: "wrap" }, { html: badge(c.result) }]),
      { wrap: [true, false] },
    )}`;
  else html += `<p class="note">The plan requests no checks.</p>`;
  if (r.warnings.length > 0)
    html += `<h3>Warnings</h3><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>`;
  if (r.failures.length > 0)
    html += `<p class="note">${r.failures.length} run(s) failed and are left out of every aggregate (see the failed-runs table).</p>`;
  return html;
}

// HTML assembly for reports: one self-contained file (inline CSS, the charting library's browser
// build, chart data as JSON, and the page script). The page loads nothing from anywhere.

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { REPORT_CSS } from "./css.js";
import type { ChartSpec } from "./chartSpec.js";
import { DATA_FILE_LIMIT, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

const require = createRequire(import.meta.url);

interface Library {
  name: string;
  version: string;
  code: string;
}

let cached: Library | null = null;

/** Chart.js's minified UMD build, read from node_modules (its package exports only the module builds). */
export function chartLibrary(): Library {
  if (cached !== null) return cached;
  let main: string;
  try {
    main = require.resolve("chart.js");
  } catch {
    throw new Error("the chart.js package is not installed (npm install) — it is needed to build HTML reports");
  }
  let dir = path.dirname(main);
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  const pkg = JSON.parse(readInputFile(path.join(dir, "package.json"), SPEC_FILE_LIMIT)) as { version: string };
  const code = readInputFile(path.join(dir, "dist", "chart.umd.min.js"), DATA_FILE_LIMIT)
    // The source map is not shipped in the report; a dangling reference would make developer
    // tools try to load it.
    .replace(/\n?\/\/# sourceMappingURL=\S*\s*$/, "\n");
  cached = { name: "Chart.js", version: pkg.version, code };
  return cached;
}

let pageScriptCache: string | null = null;

/** The page's own script: client/ bundled at build time (scripts/buildReportClient.mjs) beside this module. */
function pageScript(): string {
  if (pageScriptCache !== null) return pageScriptCache;
  const file = fileURLToPath(new URL("./client.bundle.js", import.meta.url));
  try {
    pageScriptCache = readInputFile(file, DATA_FILE_LIMIT);
  } catch {
    throw new Error(`${file} is missing: the report page script is built by npm run build`);
  }
  return pageScriptCache;
}

export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Text safe inside a <script> element (cannot close it or open a comment). */
function scriptSafe(code: string): string {
  return code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

/** JSON inside <script type="application/json">: every "<" escaped, so no tag can start. */
export function jsonForScript(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export type Cell = string | number | null | { html: string } | { text: string; cls?: string };

export interface TableOptions {
  /** Right-aligned (numeric) columns. */
  right?: boolean[];
  /** Per-row CSS class. */
  rowClass?: (string | null)[];
  /** Columns whose text may wrap. */
  wrap?: boolean[];
  caption?: string;
}

function cellHtml(c: Cell, fmt: (n: number) => string): string {
  if (c === null) return "–";
  if (typeof c === "number") return esc(fmt(c));
  if (typeof c === "string") return esc(c);
  if ("html" in c) return c.html;
  return esc(c.text);
}

/** A table in a horizontally scrolling wrapper. Numbers are formatted with `fmt`. */
export function table(
  columns: string[],
  rows: Cell[][],
  opts: TableOptions = {},
  fmt: (n: number) => string = fmtCell,
): string {
  const right = opts.right ?? [];
  const wrap = opts.wrap ?? [];
  const classes = (i: number, extra = ""): string => {
    const c = [right[i] ? "num" : "", wrap[i] ? "wrap" : "", extra].filter((x) => x !== "").join(" ");
    return c === "" ? "" : ` class="${c}"`;
  };
  const head = columns.map((c, i) => `<th${classes(i)}>${esc(c)}</th>`).join("");
  const body = rows
    .map((r, k) => {
      const rc = opts.rowClass?.[k];
      const tds = r
        .map((c, i) => {
          const extra = c !== null && typeof c === "object" && "cls" in c && c.cls ? c.cls : "";
          return `<td${classes(i, extra)}>${cellHtml(c, fmt)}</td>`;
        })
        .join("");
      return `<tr${rc ? ` class="${rc}"` : ""}>${tds}</tr>`;
    })
    .join("\n");
  const caption = opts.caption ? `<caption class="muted">${esc(opts.caption)}</caption>` : "";
  return `<div class="table-wrap"><table>${caption}<thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

/** Default number text in tables: integers as is, else up to 4 significant decimals. */
export function fmtCell(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(1);
  if (a >= 1) return v.toFixed(3);
  if (a === 0) return "0";
  return v.toPrecision(4);
}

export function badge(result: string): string {
  const cls = result === "PASS" || result === "FAIL" ? result : "na";
  return `<span class="badge ${cls}">${esc(result)}</span>`;
}

export interface Card {
  label: string;
  value: string;
  unit?: string;
  title?: string;
}

export function cards(list: Card[]): string {
  return `<div class="cards">${list
    .map(
      (c) =>
        `<div class="card"${c.title ? ` title="${esc(c.title)}"` : ""}><div class="k">${esc(c.label)}</div><div class="v">${esc(c.value)}${
          c.unit ? `<span class="u">${esc(c.unit)}</span>` : ""
        }</div></div>`,
    )
    .join("")}</div>`;
}

/** Collects the charts of a page while its HTML is written. */
export class ChartSet {
  readonly specs: ChartSpec[] = [];
  private ids = new Set<string>();

  /** The figure for one chart; the spec is embedded in the page and drawn by the page script. */
  figure(spec: ChartSpec): string {
    let id = spec.id.replace(/[^A-Za-z0-9_-]/g, "-");
    for (let k = 2; this.ids.has(id); k++) id = `${spec.id}-${k}`;
    this.ids.add(id);
    this.specs.push({ ...spec, id });
    const note = spec.note ? `<div class="n">${esc(spec.note)}</div>` : "";
    const h = spec.height ?? 300;
    return (
      `<figure class="chart"><figcaption><div class="t">${esc(spec.title)}</div>${note}</figcaption>` +
      `<div class="chart-wrap" style="height:${h}px"><canvas id="chart-${id}" role="img" aria-label="${esc(spec.title)}"></canvas></div></figure>`
    );
  }
}

export function emptyNote(title: string, text: string): string {
  return `<figure class="chart"><figcaption><div class="t">${esc(title)}</div></figcaption><div class="empty">${esc(text)}</div></figure>`;
}

export interface Page {
  title: string;
  subtitle: string;
  nav: { id: string; label: string }[];
  body: string;
  charts: ChartSet;
  footer: string;
}

export function renderPage(p: Page): string {
  const lib = chartLibrary();
  const nav = p.nav.map((n) => `<a href="#${esc(n.id)}">${esc(n.label)}</a>`).join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(p.title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header class="top"><h1>${esc(p.title)}</h1><div class="sub">${p.subtitle}</div></header>
<nav class="toc">${nav}</nav>
<main>
${p.body}
</main>
<footer>${p.footer} Charts drawn with ${esc(lib.name)} ${esc(lib.version)} (MIT), embedded in this file; the page makes no network requests.</footer>
<script type="application/json" id="blis-report-charts">${jsonForScript(p.charts.specs)}</script>
<script>${scriptSafe(lib.code)}</script>
<script>${scriptSafe(pageScript())}</script>
</body>
</html>
`;
}

/** A section with a heading (and an anchor for the navigation bar). */
export function section(id: string, title: string, lead: string, inner: string): string {
  return `<section id="${esc(id)}"><h2>${esc(title)}</h2>${lead !== "" ? `<p class="lead">${lead}</p>` : ""}\n${inner}\n</section>`;
}

// The report stylesheet: system fonts only (no web fonts), a responsive chart grid, and a print
// layout (one column, no navigation, no breaks inside a chart or a table row).

export const REPORT_CSS = `
:root {
  --ink: #1f2328;
  --muted: #59636e;
  --grid: #e6e8eb;
  --line: #d0d7de;
  --panel: #f6f8fa;
  --accent: #0969da;
  --pass: #1a7f37;
  --fail: #cf222e;
  --na: #6e7781;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  color: var(--ink);
  background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top {
  padding: 20px 28px 14px;
  border-bottom: 1px solid var(--line);
  background: var(--panel);
}
header.top h1 { margin: 0 0 4px; font-size: 22px; font-weight: 650; }
header.top .sub { color: var(--muted); }
nav.toc {
  position: sticky; top: 0; z-index: 5;
  display: flex; flex-wrap: wrap; gap: 4px 14px;
  padding: 8px 28px;
  background: rgba(255, 255, 255, 0.96);
  border-bottom: 1px solid var(--line);
  font-size: 13px;
}
main { max-width: 1440px; margin: 0 auto; padding: 8px 28px 40px; }
section { margin-top: 26px; scroll-margin-top: 48px; }
section > h2 { font-size: 18px; font-weight: 650; margin: 0 0 4px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
section > p.lead, p.note { color: var(--muted); margin: 6px 0 12px; max-width: 110ch; }
h3 { font-size: 15px; font-weight: 650; margin: 18px 0 6px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; margin: 12px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; background: #fff; }
.card .k { color: var(--muted); font-size: 12px; }
.card .v { font-size: 19px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .u { color: var(--muted); font-size: 12px; margin-left: 2px; font-weight: 400; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 460px), 1fr)); gap: 16px; align-items: start; }
figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px 8px; background: #fff; min-width: 0; break-inside: avoid; page-break-inside: avoid; }
figure.chart figcaption { margin-bottom: 6px; }
figure.chart .t { font-weight: 650; }
figure.chart .n { color: var(--muted); font-size: 12.5px; }
.chart-wrap { position: relative; width: 100%; height: 300px; }
.chart-wrap canvas { display: block; }
.empty { color: var(--muted); border: 1px dashed var(--line); border-radius: 8px; padding: 14px; background: var(--panel); }
.table-wrap { overflow-x: auto; margin: 8px 0 14px; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--grid); text-align: left; vertical-align: top; white-space: nowrap; }
th { background: var(--panel); font-weight: 600; white-space: normal; vertical-align: bottom; }
td.num, th.num { text-align: right; }
td.wrap { white-space: normal; min-width: 18ch; }
tr:last-child td { border-bottom: 0; }
tr.changed td:first-child { box-shadow: inset 3px 0 0 var(--accent); }
tr.group td { background: #fbfcfd; font-weight: 600; color: var(--muted); }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 650; color: #fff; }
.badge.PASS { background: var(--pass); }
.badge.FAIL { background: var(--fail); }
.badge.na { background: var(--na); }
details { margin: 8px 0; }
details > summary { cursor: pointer; color: var(--accent); }
pre.json { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; overflow-x: auto; max-height: 560px; margin: 8px 0; }
.two { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 420px), 1fr)); gap: 16px; align-items: start; }
.muted { color: var(--muted); }
footer { color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding: 12px 28px; }
@media (max-width: 700px) {
  header.top, main, nav.toc, footer { padding-left: 14px; padding-right: 14px; }
  .chart-wrap { height: 260px; }
}
@media print {
  @page { size: A4; margin: 14mm; }
  body { font-size: 11px; }
  nav.toc { display: none; }
  header.top { background: none; padding: 0 0 8px; }
  main { padding: 0; max-width: none; }
  section { break-before: auto; }
  section > h2, h3, p.lead, p.note { break-after: avoid; page-break-after: avoid; }
  .grid, .two { display: block; }
  figure.chart { margin: 0 0 10px; border-color: #bbb; }
  .chart-wrap { height: 250px; }
  .table-wrap { overflow: visible; border: 0; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  pre.json { max-height: none; white-space: pre-wrap; }
  details { display: block; }
  details > summary { color: var(--ink); }
  a { color: var(--ink); }
  footer { border: 0; padding: 8px 0 0; }
}
`;

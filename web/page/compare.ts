// Compare mode: a pinned baseline beside the current result — every card value with its change,
// the flags that differ, and both latency CDFs on one chart.

import type { ChartSpec } from "../../src/report/chartSpec.js";
import type { Params, RunSummary } from "../shared/protocol.js";
import { byId, el, fmtValue } from "./dom.js";
import { CARDS, deltaText } from "./results.js";
import { ChartGroup, figure } from "./charts.js";

export interface Pinned {
  params: Params;
  result: RunSummary;
}

const charts = new ChartGroup();

function paramDiff(a: Params, b: Params): { name: string; base: string; now: string }[] {
  const ma = new Map(a);
  const mb = new Map(b);
  const names = [...new Set([...ma.keys(), ...mb.keys()])];
  return names
    .filter((n) => ma.get(n) !== mb.get(n))
    .map((n) => ({ name: n, base: ma.get(n) ?? "(default)", now: mb.get(n) ?? "(default)" }));
}

function cdfSpec(id: string, title: string, base: RunSummary, now: RunSummary, key: "ttft" | "itl" | "e2e"): ChartSpec {
  const ds = (label: string, color: string, r: RunSummary, dash?: number[]): ChartSpec["datasets"][number] => ({
    label,
    color,
    x: r.cdf[key].x,
    y: r.cdf[key].y,
    width: 2,
    ...(dash !== undefined ? { dash } : {}),
  });
  return {
    id,
    kind: "line",
    title,
    xLabel: "ms",
    yLabel: "fraction of requests",
    yPercent: true,
    yMin: 0,
    yMax: 1,
    xScale: "logarithmic",
    datasets: [ds("baseline", "#8c959f", base, [6, 4]), ds("current", "#4e79a7", now)],
    legend: true,
    xUnit: "ms",
    height: 260,
  };
}

function table(base: RunSummary, now: RunSummary): HTMLElement {
  const rows = CARDS.map((c) => {
    const a = base.metrics[c.key] ?? null;
    const b = now.metrics[c.key] ?? null;
    return el(
      "tr",
      { "data-metric": c.key },
      el("th", { scope: "row", text: c.label + (c.unit !== "" ? ` (${c.unit})` : "") }),
      el("td", { class: "num", text: a === null ? "n/a" : fmtValue(a) }),
      el("td", { class: "num", text: b === null ? "n/a" : fmtValue(b) }),
      el("td", { class: "num", text: deltaText(a, b) }),
    );
  });
  const head = el(
    "tr",
    {},
    ...["metric", "baseline", "current", "change"].map((h) => el("th", { scope: "col", text: h })),
  );
  return el(
    "div",
    { class: "table-wrap" },
    el("table", { id: "compare-table" }, el("thead", {}, head), el("tbody", {}, ...rows)),
  );
}

/** Shows the comparison, or hides it without a baseline. */
export function renderCompare(base: Pinned | null, now: Pinned | null): void {
  const box = byId("compare");
  charts.clear();
  if (base === null || now === null) {
    box.hidden = true;
    return;
  }
  const diff = paramDiff(base.params, now.params);
  const diffEl =
    diff.length === 0
      ? el("p", { class: "note", text: "Same flags as the baseline." })
      : el(
          "ul",
          { class: "diff" },
          ...diff.map((d) => el("li", {}, el("code", { text: `--${d.name}` }), ` ${d.base} → ${d.now}`)),
        );
  const specs = [
    cdfSpec("cmp-ttft", "TTFT — CDF", base.result, now.result, "ttft"),
    cdfSpec("cmp-itl", "ITL per request — CDF", base.result, now.result, "itl"),
    cdfSpec("cmp-e2e", "E2E — CDF", base.result, now.result, "e2e"),
  ];
  const grid = el("div", { class: "grid" });
  grid.innerHTML = specs.map(figure).join("");
  byId("compare-body").replaceChildren(
    el("h3", { text: "Changed flags" }),
    diffEl,
    table(base.result, now.result),
    grid,
  );
  box.hidden = false;
  charts.draw(specs);
}

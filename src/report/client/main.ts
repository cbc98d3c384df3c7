// The report page's script, inlined after Chart.js. It reads the chart descriptions
// (chartSpec.ts) from a JSON script element and draws them. It loads nothing: no fonts, no
// images, no network.

import type { ChartSpec } from "../chartSpec.js";
import { chartConfig } from "./config.js";
import { reportPlugins } from "./plugins.js";
import { installPrintHandlers } from "./print.js";
import type { ReportState } from "./state.js";
import { applyTheme, type Theme } from "./theme.js";

function draw(state: ReportState, spec: ChartSpec, theme: Theme): void {
  const canvas = document.getElementById("chart-" + spec.id);
  if (!(canvas instanceof HTMLCanvasElement)) {
    state.failed.push(spec.id);
    console.error("blis report: no canvas for chart " + spec.id);
    return;
  }
  try {
    state.charts.push(new Chart(canvas, chartConfig(spec, theme)));
    state.rendered++;
  } catch (e) {
    state.failed.push(spec.id);
    console.error("blis report: chart " + spec.id + " failed: " + (e instanceof Error && e.message ? e.message : e));
  }
}

function main(): void {
  const state: ReportState = { expected: 0, rendered: 0, failed: [], charts: [] };
  window.blisReport = state;
  const el = document.getElementById("blis-report-charts");
  if (!el) return;
  const specs = JSON.parse(el.textContent || "[]") as ChartSpec[];
  state.expected = specs.length;
  if (typeof Chart === "undefined") {
    console.error("blis report: the charting library did not load");
    return;
  }
  const theme = applyTheme();
  Chart.register(...reportPlugins(theme));
  specs.forEach((spec) => draw(state, spec, theme));
  installPrintHandlers(state.charts);
}

main();

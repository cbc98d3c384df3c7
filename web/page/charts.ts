// Draws chart descriptions (src/report/chartSpec.ts) with the run report's own Chart.js
// configuration and plugins (src/report/client/), so the page's charts read like the report's.

import type { Chart as ChartInstance } from "chart.js";
import type { ChartSpec } from "../../src/report/chartSpec.js";
import { chartConfig } from "../../src/report/client/config.js";
import { reportPlugins } from "../../src/report/client/plugins.js";
import { applyTheme, type Theme } from "../../src/report/client/theme.js";

let theme: Theme | null = null;

function themed(): Theme {
  if (theme === null) {
    theme = applyTheme();
    Chart.register(...reportPlugins(theme));
  }
  return theme;
}

/** Charts of one area of the page, replaced together. */
export class ChartGroup {
  private charts: ChartInstance[] = [];
  failed: string[] = [];

  clear(): void {
    for (const c of this.charts) c.destroy();
    this.charts = [];
    this.failed = [];
  }

  draw(specs: readonly ChartSpec[]): void {
    const t = themed();
    for (const spec of specs) {
      const canvas = document.getElementById("chart-" + spec.id);
      if (!(canvas instanceof HTMLCanvasElement)) {
        this.failed.push(spec.id);
        continue;
      }
      try {
        this.charts.push(new Chart(canvas, chartConfig(spec, t)));
      } catch (e) {
        this.failed.push(spec.id);
        console.error(`chart ${spec.id} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  get count(): number {
    return this.charts.length;
  }
}

/** A figure with a canvas for a spec (the report's markup, src/report/html.ts ChartSet.figure). */
export function figure(spec: ChartSpec): string {
  const esc = (s: string): string =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const note = spec.note !== undefined ? `<div class="n">${esc(spec.note)}</div>` : "";
  return (
    `<figure class="chart"><figcaption><div class="t">${esc(spec.title)}</div>${note}</figcaption>` +
    `<div class="chart-wrap" style="height:${spec.height ?? 300}px"><canvas id="chart-${spec.id}" role="img" aria-label="${esc(spec.title)}"></canvas></div></figure>`
  );
}

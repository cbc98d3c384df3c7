// Chart.js plugins that draw what the library has no option for: seed-spread whiskers over bars,
// labels next to scatter points, and dashed reference lines.

import type { BarProps, Chart, Element, Plugin } from "chart.js";
import { clampToAxis, type RefLine } from "../chartSpec.js";
import { extrasOf, type ReportChartType } from "./datasets.js";
import type { Theme } from "./theme.js";

/** Options of the reference-line plugin (chart options → plugins → blisRefLines). */
export interface RefLinesOptions {
  lines: RefLine[];
}

/** Bar thickness across the bar; undefined for elements that are not bars. */
function thickness(el: Element, horizontal: boolean): number | undefined {
  const bar = el as Element & Partial<Pick<BarProps, "width" | "height">>;
  return horizontal ? bar.height : bar.width;
}

/** Min/max whiskers over bars (seed spread), inside the axis range. */
function whiskers(theme: Theme): Plugin {
  return {
    id: "blisWhiskers",
    afterDatasetsDraw(chart: Chart) {
      const ctx = chart.ctx;
      const horizontal = chart.options.indexAxis === "y";
      chart.data.datasets.forEach((ds, i) => {
        const spread = extrasOf(ds).blisWhiskers;
        if (!spread || !chart.isDatasetVisible(i)) return;
        const meta = chart.getDatasetMeta(i);
        const axisId = horizontal ? meta.xAxisID : meta.yAxisID;
        const scale = axisId === undefined ? undefined : chart.scales[axisId];
        if (scale === undefined) return;
        ctx.save();
        ctx.strokeStyle = theme.ink;
        ctx.lineWidth = 1.25;
        meta.data.forEach((bar, j) => {
          const w = spread[j];
          const span = w ? clampToAxis(w, scale) : null;
          if (!span) return;
          const a = scale.getPixelForValue(span.lo);
          const b = scale.getPixelForValue(span.hi);
          const cap = Math.max(3, Math.min(8, (thickness(bar, horizontal) || 10) * 0.3));
          ctx.beginPath();
          // A clamped end has no cap: the spread goes on beyond the axis.
          if (horizontal) {
            ctx.moveTo(a, bar.y);
            ctx.lineTo(b, bar.y);
            if (span.loCap) {
              ctx.moveTo(a, bar.y - cap);
              ctx.lineTo(a, bar.y + cap);
            }
            if (span.hiCap) {
              ctx.moveTo(b, bar.y - cap);
              ctx.lineTo(b, bar.y + cap);
            }
          } else {
            ctx.moveTo(bar.x, a);
            ctx.lineTo(bar.x, b);
            if (span.loCap) {
              ctx.moveTo(bar.x - cap, a);
              ctx.lineTo(bar.x + cap, a);
            }
            if (span.hiCap) {
              ctx.moveTo(bar.x - cap, b);
              ctx.lineTo(bar.x + cap, b);
            }
          }
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };
}

interface Box {
  l: number;
  r: number;
  t: number;
  b: number;
}

/** Offsets from a point tried in turn for its label: right, left, then centred above or below. */
function labelOffsets(width: number): [number, number][] {
  return [
    [8, -9],
    [8, 9],
    [-8 - width, -9],
    [-8 - width, 9],
    [-width / 2, -16],
    [-width / 2, 16],
  ];
}

/** Text next to points (Pareto cells), skipping labels that would overlap one already drawn. */
function pointLabels(theme: Theme): Plugin {
  return {
    id: "blisPointLabels",
    afterDatasetsDraw(chart: Chart) {
      const ctx = chart.ctx;
      const area = chart.chartArea;
      const placed: Box[] = [];
      const h = 13;
      ctx.save();
      ctx.font = theme.labelFont;
      ctx.fillStyle = theme.ink;
      ctx.textBaseline = "middle";
      chart.data.datasets.forEach((ds, i) => {
        const labels = extrasOf(ds).blisPointLabels;
        if (!labels || !chart.isDatasetVisible(i)) return;
        chart.getDatasetMeta(i).data.forEach((pt, j) => {
          const text = labels[j];
          if (!text) return;
          const w = ctx.measureText(text).width;
          for (const [dx, dy] of labelOffsets(w)) {
            const x = pt.x + dx;
            const y = pt.y + dy;
            const box = { l: x - 1, r: x + w + 1, t: y - h / 2, b: y + h / 2 };
            if (box.l < area.left || box.r > area.right || box.t < area.top || box.b > area.bottom) continue;
            if (placed.some((o) => !(box.r < o.l || box.l > o.r || box.b < o.t || box.t > o.b))) continue;
            placed.push(box);
            ctx.fillText(text, x, y);
            break;
          }
        });
      });
      ctx.restore();
    },
  };
}

/** Dashed reference lines (ratio = 1, …). */
function refLines(theme: Theme): Plugin<ReportChartType, RefLinesOptions> {
  return {
    id: "blisRefLines",
    afterDraw(chart, _args, options) {
      const lines = options.lines;
      if (!lines || !lines.length) return;
      const ctx = chart.ctx;
      const area = chart.chartArea;
      ctx.save();
      ctx.strokeStyle = theme.ink;
      ctx.fillStyle = theme.ink;
      ctx.setLineDash([5, 4]);
      ctx.lineWidth = 1;
      ctx.font = theme.labelFont;
      lines.forEach((l) => {
        const scale = chart.scales[l.axis];
        if (!scale) return;
        const p = scale.getPixelForValue(l.value);
        ctx.beginPath();
        if (l.axis === "x") {
          if (p < area.left || p > area.right) return;
          ctx.moveTo(p, area.top);
          ctx.lineTo(p, area.bottom);
          ctx.stroke();
          if (l.label) ctx.fillText(l.label, p + 4, area.top + 10);
        } else {
          if (p < area.top || p > area.bottom) return;
          ctx.moveTo(area.left, p);
          ctx.lineTo(area.right, p);
          ctx.stroke();
          if (l.label) ctx.fillText(l.label, area.right - ctx.measureText(l.label).width - 4, p - 5);
        }
      });
      ctx.restore();
    },
  };
}

/** The page's plugins, registered for every chart. */
export function reportPlugins(theme: Theme): Plugin[] {
  return [whiskers(theme), pointLabels(theme), refLines(theme)];
}

// Chart descriptions embedded in a report as JSON. The page's script (client/) turns each one
// into a Chart.js chart; nothing here depends on Chart.js itself.

export interface DatasetSpec {
  label: string;
  color: string;
  /** y values (or bar lengths); null = no value. */
  y: (number | null)[];
  /** x values of a line/scatter dataset; omitted = the chart's shared `x` or category labels. */
  x?: number[];
  /** Dataset type when it differs from the chart's (e.g. a frontier line on a scatter chart). */
  type?: "line" | "bar" | "scatter";
  /** Line width in px (lines), default 1.5. */
  width?: number;
  dash?: number[];
  /** Point radius (default 0 for lines, 4 for scatter). */
  radius?: number;
  /** Point style for scatter datasets. */
  pointStyle?: PointStyleName;
  /** Filled point background (scatter); default: the color. */
  fillColor?: string;
  /** Per-bar [min, max] whiskers (seed spread). */
  whiskers?: ([number, number] | null)[] | undefined;
  /** Text drawn next to each point (scatter). */
  pointLabels?: (string | null)[];
  /** Extra tooltip line per point. */
  notes?: (string | null)[];
  /** Not listed in the legend. */
  noLegend?: boolean;
  /** Starts hidden (toggle in the legend). */
  hidden?: boolean;
  /** Stack group for stacked bars. */
  stack?: string;
  /** Draw order: lower is drawn on top (Chart.js `order`). */
  order?: number;
  /** Floating bars from this value to y (e.g. ratios drawn from 1). */
  base?: number;
  /** Plot against the secondary (right) value axis. */
  rightAxis?: boolean;
}

/** Chart.js's point shapes. */
export type PointStyleName = "circle" | "cross" | "crossRot" | "dash" | "line" | "rect" | "rectRounded" | "rectRot" | "star" | "triangle";

export interface RefLine {
  axis: "x" | "y";
  value: number;
  label?: string;
}

export interface ChartSpec {
  id: string;
  kind: "line" | "bar" | "scatter";
  title: string;
  /** One line under the title: what the data is, how it was reduced. */
  note?: string;
  xLabel: string;
  yLabel: string;
  /** Title of the right value axis (datasets with rightAxis). */
  y2Label?: string;
  /** Category labels (bar charts). */
  labels?: string[];
  /** Show every category label (rotating them if needed) instead of skipping some. */
  allLabels?: boolean;
  /** Shared x values of every dataset (time series). */
  x?: number[];
  datasets: DatasetSpec[];
  xScale?: "linear" | "logarithmic" | "category";
  yScale?: "linear" | "logarithmic";
  /** Format y ticks as percentages of 1 (0.25 → 25%). */
  yPercent?: boolean;
  xPercent?: boolean;
  /** Whole-number ticks on the value axis (counts). */
  yInteger?: boolean;
  yMin?: number;
  yMax?: number;
  xMin?: number;
  xMax?: number;
  stacked?: boolean;
  /** Horizontal bars. */
  horizontal?: boolean;
  refLines?: RefLine[];
  /** Chart height in px (default 300). */
  height?: number;
  /** Legend shown (default: when there is more than one legend entry). */
  legend?: boolean;
  /** Tooltip mode: "index" (all series at an x, time series) or "nearest" (default). */
  tooltip?: "index" | "nearest";
  /** Unit appended to y values in tooltips. */
  yUnit?: string;
  xUnit?: string;
}

/** Categorical palette (Tableau 10): distinguishable, colour-blind aware, prints well. */
export const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
/** The aggregate series (cluster, all requests). */
export const AGGREGATE_COLOR = "#1f2328";
export const MUTED_COLOR = "#8c959f";

export function paletteColor(i: number): string {
  return PALETTE[i % PALETTE.length]!;
}

/** Fixed colours for the usual SLO classes so that they read the same in every chart. */
const SLO_COLORS: Record<string, string> = {
  critical: "#e15759",
  standard: "#4e79a7",
  sheddable: "#59a14f",
  batch: "#f28e2b",
  background: "#b07aa1",
  default: "#76b7b2",
};

/** Colour of each SLO class, in the order given (fixed names first, then the palette). */
export function sloColors(classes: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const c of classes) {
    const fixed = SLO_COLORS[c];
    if (fixed !== undefined && !used.has(fixed)) {
      out.set(c, fixed);
      used.add(fixed);
    }
  }
  let k = 0;
  for (const c of classes) {
    if (out.has(c)) continue;
    while (used.has(paletteColor(k)) && k < PALETTE.length) k++;
    const col = paletteColor(k++);
    out.set(c, col);
    used.add(col);
  }
  return out;
}

/** Compact number text for labels (3 significant digits, k/M suffixes for large values). */
export function fmtShort(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e9) return `${trim((v / 1e9).toPrecision(3))}G`;
  if (a >= 1e6) return `${trim((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${trim((v / 1e3).toPrecision(3))}k`;
  if (Number.isInteger(v)) return String(v);
  if (a >= 100) return v.toFixed(0);
  return trim(v.toPrecision(3));
}

function trim(s: string): string {
  return s.includes(".") && !s.includes("e") ? s.replace(/\.?0+$/, "") : s;
}

/** Axis bounds padded so that points do not sit on the frame (linear or logarithmic axis). */
export function paddedRange(values: readonly number[], log: boolean, pad = 0.07): [number, number] | null {
  const v = values.filter((x) => Number.isFinite(x) && (!log || x > 0));
  if (v.length === 0) return null;
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  if (log) {
    const f = hi > lo ? Math.pow(hi / lo, pad) : 1.2;
    return [lo / f, hi * f];
  }
  const span = hi > lo ? (hi - lo) * pad : Math.abs(hi) * 0.1 || 1;
  return [lo - span, hi + span];
}

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
export type PointStyleName =
  "circle" | "cross" | "crossRot" | "dash" | "line" | "rect" | "rectRounded" | "rectRot" | "star" | "triangle";

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
export const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];
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
  // Loops, not Math.min(...v): thousands of points overflow the stack of a browser worker.
  const lo = v.reduce((m, x) => Math.min(m, x), Infinity);
  const hi = v.reduce((m, x) => Math.max(m, x), -Infinity);
  if (log) {
    const f = hi > lo ? Math.pow(hi / lo, pad) : 1.2;
    return [lo / f, hi * f];
  }
  const span = hi > lo ? (hi - lo) * pad : Math.abs(hi) * 0.1 || 1;
  return [lo - span, hi + span];
}

/** m × 10^k as the exact decimal (2e-7, not 2.0000000000000002e-7). */
function decimal(m: number, k: number): number {
  return Number(`${m}e${k}`);
}

/** The exponent k with 10^k <= v < 10^(k+1) (v > 0), robust to rounding in log10. */
function decade(v: number): number {
  let k = Math.floor(Math.log10(v));
  while (decimal(1, k) > v) k--;
  while (decimal(1, k + 1) <= v) k++;
  return k;
}

/**
 * The values m × 10^k (m in `mantissas`, k a multiple of `stride`) between lo and hi, with the nearest ones outside.
 */
function niceValues(lo: number, hi: number, mantissas: readonly number[], stride: number): number[] {
  const all: number[] = [];
  for (let k = Math.floor(decade(lo) / stride) * stride; ; k += stride) {
    for (const m of mantissas) all.push(decimal(m, k));
    if (decimal(1, k) > hi) break;
  }
  const first = all.filter((v) => v <= lo).pop()!;
  const last = all.find((v) => v >= hi)!;
  return all.filter((v) => v >= first && v <= last);
}

/** A logarithmic axis: bounds and tick values. */
export interface LogAxis {
  min: number;
  max: number;
  ticks: number[];
}

/**
 * Ticks of a logarithmic axis over the positive range [lo, hi]: 1-2-5 × 10^k, or only powers of
 * ten (every one, every other, …) when the range is too wide for `maxTicks` of them. The bounds
 * are widened to the nearest tick values outside the range, so the first and last ticks sit on
 * the frame; fixed bounds (`fixed`) are kept and only the ticks inside them are given.
 */
export function logAxis(lo: number, hi: number, maxTicks = 8, fixed: { min?: number; max?: number } = {}): LogAxis {
  let a = Math.min(lo, hi);
  let b = Math.max(lo, hi);
  // A single value: a range around it, so that the axis has ticks on both sides.
  if (a === b) [a, b] = [a / 1.5, b * 1.5];
  const choices: [readonly number[], number][] = [
    [[1, 2, 5], 1],
    [[1], 1],
  ];
  for (let stride = 2; stride < 400; stride *= 2) choices.push([[1], stride]);
  let ticks: number[] = [];
  for (const [mantissas, stride] of choices) {
    ticks = niceValues(a, b, mantissas, stride);
    if (ticks.length <= maxTicks) break;
  }
  const min = fixed.min ?? ticks[0]!;
  const max = fixed.max ?? ticks[ticks.length - 1]!;
  return { min, max, ticks: ticks.filter((v) => v >= min * (1 - 1e-12) && v <= max * (1 + 1e-12)) };
}

/** A whisker's part inside the axis range, or null when none of it is. */
export interface WhiskerSpan {
  lo: number;
  hi: number;
  /** The end is the whisker's own (not cut at the axis). */
  loCap: boolean;
  hiCap: boolean;
}

/**
 * Clamps a [min, max] whisker to the axis range, so that it never runs over the tick labels. On a
 * logarithmic axis a value <= 0 lies below every positive floor.
 */
export function clampToAxis(
  w: readonly [number, number],
  scale: { min: number; max: number; type: string },
): WhiskerSpan | null {
  const floor = scale.min;
  const ceil = scale.max;
  const lo = scale.type === "logarithmic" && !(w[0] > 0) ? -Infinity : w[0];
  const hi = scale.type === "logarithmic" && !(w[1] > 0) ? -Infinity : w[1];
  if (hi < floor || lo > ceil) return null;
  return { lo: Math.max(lo, floor), hi: Math.min(hi, ceil), loCap: lo >= floor, hiCap: hi <= ceil };
}

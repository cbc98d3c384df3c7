// Axes of a chart: types, titles, tick text and bounds.

import type { Scale } from "chart.js";
import type { ChartSpec } from "../chartSpec.js";
import { fmt, logTickText, pct } from "./format.js";
import { logScaleOptions } from "./logScale.js";
import type { Theme } from "./theme.js";

export type AxisType = "linear" | "logarithmic" | "category";

/** The options the page sets on an axis (a subset of Chart.js's cartesian scale options). */
export interface AxisOptions {
  type: AxisType;
  title: { display: boolean; text: string; color: string; font: { weight: number } };
  grid: { color?: string; display?: boolean; drawOnChartArea?: boolean };
  ticks: {
    callback?: (value: number | string) => string;
    maxTicksLimit?: number;
    autoSkip?: boolean;
    autoSkipPadding?: number;
    maxRotation?: number;
    includeBounds?: boolean;
    precision?: number;
  };
  stacked: boolean;
  min?: number;
  max?: number;
  suggestedMin?: number;
  suggestedMax?: number;
  beginAtZero?: boolean;
  position?: "right";
  bounds?: "data" | "ticks";
  afterDataLimits?: (scale: Scale) => void;
  afterBuildTicks?: (scale: Scale) => void;
}

// A type alias rather than an interface: Chart.js expects a string-indexed map of axes.
export type Scales = {
  x: AxisOptions;
  y: AxisOptions;
  /** Secondary value axis, for datasets drawn against the right-hand side. */
  y2?: AxisOptions;
};

interface AxisRequest {
  type: AxisType;
  title: string;
  percent?: boolean;
  min?: number;
  max?: number;
  stacked?: boolean;
  /** The axis along which data are indexed (categories, time), as opposed to a value axis. */
  isIndex: boolean;
  /** Bounds are suggestions that the scale rounds to tick values (padded scatter bounds). */
  soft?: boolean;
}

function axis(theme: Theme, r: AxisRequest): AxisOptions {
  const a: AxisOptions = {
    type: r.type,
    title: { display: !!r.title, text: r.title, color: theme.ink, font: { weight: 600 } },
    grid: { color: theme.grid },
    ticks: {},
    stacked: !!r.stacked,
  };
  if (r.type === "logarithmic") {
    a.ticks.callback = (v) => (r.percent ? pct(Number(v)) : logTickText(Number(v)));
    // The ticks are few and chosen (logScale.ts): skipping some would make them irregular again.
    a.ticks.autoSkip = false;
    // Zero is not on a logarithmic axis: bars start at the floor below the lowest value or whisker,
    // not at the power of ten Chart.js would pick for "begin at zero".
    a.beginAtZero = false;
    Object.assign(
      a,
      logScaleOptions(
        r.soft
          ? {}
          : { ...(r.min !== undefined ? { min: r.min } : {}), ...(r.max !== undefined ? { max: r.max } : {}) },
      ),
    );
  } else if (r.type === "linear") {
    // Tick values are numbers on this scale.
    a.ticks.callback = (v) => (r.percent ? pct(Number(v)) : fmt(v));
    a.ticks.maxTicksLimit = 9;
  } else {
    a.ticks.autoSkip = true;
    a.ticks.autoSkipPadding = 10;
    a.ticks.maxRotation = 0;
    a.grid.display = false;
  }
  if (r.soft) {
    if (r.min !== undefined) a.suggestedMin = r.min;
    if (r.max !== undefined) a.suggestedMax = r.max;
  } else {
    if (r.min !== undefined) a.min = r.min;
    if (r.max !== undefined) a.max = r.max;
    // Hard bounds: no extra tick at an odd value on the frame.
    if (r.type !== "category") a.ticks.includeBounds = false;
  }
  if (r.isIndex && r.type === "linear") a.grid.display = true;
  return a;
}

/** Raises the value axis so that whiskers and reference lines fit inside it. */
function fitMarks(spec: ChartSpec, valueAxis: AxisOptions): void {
  let top = -Infinity;
  spec.datasets.forEach((d) => {
    (d.whiskers || []).forEach((w) => {
      if (w && w[1] > top) top = w[1];
    });
  });
  (spec.refLines || []).forEach((l) => {
    if (l.value * 1.04 > top) top = l.value * 1.04;
  });
  if (isFinite(top)) valueAxis.suggestedMax = top;
}

function baseScales(spec: ChartSpec, theme: Theme): Scales {
  const isBar = spec.kind === "bar";
  const soft = spec.kind === "scatter";
  const xType = spec.xScale || (isBar ? "category" : "linear");
  const yType = spec.yScale || "linear";
  const stacked = spec.stacked;
  const y = { type: yType, title: spec.yLabel, percent: spec.yPercent, min: spec.yMin, max: spec.yMax, stacked };
  if (isBar && spec.horizontal) {
    // Horizontal bars: the value axis runs along x, the categories along y.
    return {
      x: axis(theme, { ...y, isIndex: false }),
      y: axis(theme, { type: "category", title: spec.xLabel, percent: false, stacked, isIndex: true }),
    };
  }
  return {
    x: axis(theme, {
      type: xType,
      title: spec.xLabel,
      percent: spec.xPercent,
      min: spec.xMin,
      max: spec.xMax,
      stacked,
      isIndex: true,
      soft,
    }),
    y: axis(theme, { ...y, isIndex: false, soft }),
  };
}

export function buildScales(spec: ChartSpec, theme: Theme): Scales {
  const isBar = spec.kind === "bar";
  const horizontal = !!spec.horizontal;
  const scales = baseScales(spec, theme);
  const valueAxis = isBar && horizontal ? scales.x : scales.y;
  if (spec.allLabels && isBar) {
    const categoryAxis = horizontal ? scales.y : scales.x;
    categoryAxis.ticks.autoSkip = (spec.labels || []).length > 40;
    categoryAxis.ticks.maxRotation = 60;
  }
  if (spec.yInteger) valueAxis.ticks.precision = 0;
  // Floating bars start at their base, not at zero.
  if (spec.datasets.some((d) => d.base !== undefined)) (horizontal ? scales.x : scales.y).beginAtZero = false;
  if (spec.datasets.some((d) => d.rightAxis)) {
    const y2 = axis(theme, {
      type: spec.yScale || "linear",
      title: spec.y2Label || "",
      percent: spec.yPercent,
      min: 0,
      stacked: false,
      isIndex: false,
    });
    y2.position = "right";
    y2.grid = { drawOnChartArea: false };
    scales.y2 = y2;
  }
  if (isBar && valueAxis.max === undefined) fitMarks(spec, valueAxis);
  return scales;
}

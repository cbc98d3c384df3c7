// Which configurations of a sweep the Pareto front compares with each other. The offered load is a
// condition of a run, not a choice between configurations: a front drawn across load levels calls
// every configuration at a higher rate "dominated" by one at a lower rate. So configurations are
// grouped by the values of the load axes — the axes that set the workload (a workload flag such as
// `rate`, `concurrency` or `num-requests`, or any workload-spec path) — and each group gets its own
// front.

import { WORKLOAD_FLAGS } from "../config/runFlagsModel.js";
import type { SweepAxis } from "../experiment/planTypes.js";

/** Run flags (without dashes) whose axes vary the workload rather than the serving configuration. */
const LOAD_FLAGS = new Set(WORKLOAD_FLAGS.map((f) => f.flag.replace(/^--/, "")).filter((f) => f !== "seed"));

/** Axis names that, without the plan's axis kinds, are taken for load axes. */
const LOAD_NAMES = /^(rate|rates|qps|load|concurrency|num[-_]requests|requests|aggregate[-_]rate|arrival[-_]rate)$/i;

/** The load axes of a plan, in plan order. */
export function loadAxes(axes: readonly SweepAxis[]): string[] {
  return axes.filter((a) => a.kind === "spec" || (a.kind === "flag" && LOAD_FLAGS.has(a.target))).map((a) => a.name);
}

/** Load axes judged by name only (a report rebuilt from summary.json when the plan is not readable). */
export function loadAxesByName(names: readonly string[]): string[] {
  return names.filter((n) => LOAD_NAMES.test(n));
}

interface AxisValues {
  name: string;
  values: string[];
}

/**
 * The value of each axis in a configuration label (`a=1,b=x,y` with axes a and b gives
 * {a: "1", b: "x,y"}): values may contain commas, so each is matched against the axis's values.
 * Null when the label is not made of these axes.
 */
export function coordsOfLabel(label: string, axes: readonly AxisValues[]): Record<string, string> | null {
  const out: Record<string, string> = {};
  let pos = 0;
  for (let i = 0; i < axes.length; i++) {
    const axis = axes[i]!;
    const head = `${axis.name}=`;
    if (!label.startsWith(head, pos)) return null;
    pos += head.length;
    const next = i + 1 < axes.length ? `,${axes[i + 1]!.name}=` : "";
    const fits = (v: string): boolean =>
      label.startsWith(v, pos) &&
      (next === "" ? pos + v.length === label.length : label.startsWith(next, pos + v.length));
    const value = [...axis.values].sort((a, b) => b.length - a.length).find(fits);
    if (value === undefined) return null;
    out[axis.name] = value;
    pos += value.length + (next === "" ? 0 : 1);
  }
  return pos === label.length || axes.length === 0 ? out : null;
}

/** The group of each configuration: its load-axis values ("rate=100"), "" when there are none. */
export function paretoGroupOf(
  configs: readonly string[],
  axes: readonly AxisValues[],
  within: readonly string[],
): Map<string, string> {
  const groups = new Map<string, string>();
  const used = within.filter((n) => axes.some((a) => a.name === n));
  for (const c of configs) {
    const coords = used.length > 0 ? coordsOfLabel(c, axes) : null;
    groups.set(c, coords === null ? "" : used.map((n) => `${n}=${coords[n]}`).join(","));
  }
  return groups;
}

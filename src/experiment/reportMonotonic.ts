// Monotonicity checks (examples/experiments/README.md "Tables"): along a numeric axis, with the other coordinates
// fixed, the seed-averaged series and every per-seed series must be strictly monotone.

import { fmtNum } from "./format.js";
import type { MonotonicDef, SweepConfig, SweepPlan } from "./planTypes.js";
import type { CheckResult, MonotonicResult, MonotonicRow } from "./reportTypes.js";
import { mean, type RunValues } from "./reportValues.js";

export function monotonicResult(plan: SweepPlan, values: RunValues, def: MonotonicDef): MonotonicResult {
  const axis = plan.axes.find((a) => a.name === def.axis)!;
  const whereText = Object.entries(def.where)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const check = `${def.metric} ${def.direction} along ${def.axis}${whereText !== "" ? ` where ${whereText}` : ""}`;
  const num = (c: SweepConfig): number => axis.numeric![axis.labels.indexOf(c.coords[axis.name]!)]!;
  const rows: MonotonicRow[] = [];
  for (const [g, list] of seriesGroups(plan, def)) {
    const sorted = [...list].sort((a, b) => num(a) - num(b) || a.index - b.index);
    const series = (name: string, val: (c: SweepConfig) => number | null): void => {
      const points = sorted.map((c) => ({ axis_value: c.coords[axis.name]!, value: val(c) }));
      const [result, inv] = monotone(points, def.direction, def.axis);
      rows.push({ check, group: g === "" ? "(all)" : g, series: name, points, result, first_inversion: inv });
    };
    series("mean", (c) => {
      const vs = values.validValues(c, plan.seeds, def.metric);
      return vs.length > 0 ? mean(vs) : null;
    });
    for (const s of plan.seeds) series(`seed=${s}`, (c) => values.value(c, s, def.metric));
  }
  const result: CheckResult = rows.some((r) => r.result === "FAIL")
    ? "FAIL"
    : rows.some((r) => r.result === "PASS")
      ? "PASS"
      : "N/A";
  return { check, axis: def.axis, metric: def.metric, direction: def.direction, where: def.where, result, rows };
}

/** The configurations selected by `where`, grouped by their coordinates on the other axes. */
function seriesGroups(plan: SweepPlan, def: MonotonicDef): Map<string, SweepConfig[]> {
  const others = plan.axes.filter((a) => a.name !== def.axis);
  const selected = plan.configs.filter((c) => Object.entries(def.where).every(([k, v]) => c.coords[k] === v));
  const groups = new Map<string, SweepConfig[]>();
  for (const c of selected) {
    const g = others.map((a) => `${a.name}=${c.coords[a.name]}`).join(",");
    const list = groups.get(g) ?? [];
    list.push(c);
    groups.set(g, list);
  }
  return groups;
}

function monotone(
  points: { axis_value: string; value: number | null }[],
  dir: string,
  axis: string,
): [CheckResult, string] {
  if (points.some((p) => p.value === null)) return ["N/A", "missing values (failed runs)"];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i]!.value!;
    const b = points[i + 1]!.value!;
    const okStep = dir === "increasing" ? b > a : b < a;
    if (!okStep)
      return ["FAIL", `${axis} ${points[i]!.axis_value}→${points[i + 1]!.axis_value}: ${fmtNum(a)} → ${fmtNum(b)}`];
  }
  return ["PASS", ""];
}

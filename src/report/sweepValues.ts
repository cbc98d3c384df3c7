// Per-seed values of a sweep's metrics and their spread over seeds, shared by the bar charts and
// the Pareto plot.

import type { SweepReportData } from "./sweepData.js";

/** Per-seed values of a metric: from the tables, or from the extra values saved for the Pareto plot. */
export function perSeed(d: SweepReportData, metric: string): Map<string, (number | null)[]> {
  const r = d.report;
  const out = new Map<string, (number | null)[]>(r.configs.map((c) => [c, r.seeds.map(() => null)]));
  if (r.metrics.includes(metric)) {
    for (const row of r.per_seed) {
      const list = out.get(row.config);
      const i = r.seeds.indexOf(row.seed);
      if (list !== undefined && i >= 0) list[i] = row.values[metric] ?? null;
    }
  } else {
    for (const e of d.extra) {
      if (e.metric !== metric) continue;
      const list = out.get(e.config);
      const i = r.seeds.indexOf(e.seed);
      if (list !== undefined && i >= 0) list[i] = e.value;
    }
  }
  return out;
}

export interface Stat {
  mean: number;
  min: number;
  max: number;
  n: number;
}

export function stat(vs: (number | null)[]): Stat | null {
  const v = vs.filter((x): x is number => x !== null && Number.isFinite(x));
  if (v.length === 0) return null;
  return { mean: v.reduce((s, x) => s + x, 0) / v.length, min: Math.min(...v), max: Math.max(...v), n: v.length };
}

/** A log axis when positive values span more than ~1.5 orders of magnitude. */
export function wantsLog(values: number[]): boolean {
  const pos = values.filter((v) => v > 0);
  return pos.length === values.length && pos.length > 1 && Math.max(...pos) / Math.min(...pos) > 30;
}

// The ratio table (examples/experiments/README.md "Tables"): per-seed ratios against the baseline and the
// plan's explicit ratio rows, each with a verdict.

import { matching, pairs, resolveRelative, type SelectorContext } from "./planSelectors.js";
import type { SweepConfig, SweepPlan } from "./planTypes.js";
import type { RatioRow } from "./reportTypes.js";
import { clean, mean, type RunValues } from "./reportValues.js";

/** Baseline rows (every other configuration in config order) first, then the explicit ratios. */
export function ratioRows(plan: SweepPlan, values: RunValues): RatioRow[] {
  const ctx: SelectorContext = { axes: plan.axes, configs: plan.configs };
  const ratios: RatioRow[] = [];
  if (plan.baseline !== null) {
    const baseSet = new Set(matching(ctx, plan.baseline).map((c) => c.index));
    for (const c of plan.configs) {
      if (baseSet.has(c.index)) continue;
      const d = resolveRelative(ctx, plan.baseline, c);
      if (d === null || d.index === c.index) continue;
      for (const m of plan.metrics) ratios.push(ratioRow(plan, values, `vs baseline ${plan.baseline.text}`, m, c, d));
    }
  }
  for (const def of plan.ratios) {
    for (const [n, d] of pairs(ctx, def.numerator, def.denominator)) {
      for (const m of def.metrics) ratios.push(ratioRow(plan, values, def.name, m, n, d));
    }
  }
  return ratios;
}

/** The verdict of a row one of whose seeds has a denominator of 0 and a numerator that is not. */
export const ZERO_BASELINE = "n/a (baseline 0)";

/**
 * A seed whose denominator is 0 (a count such as preemptions that did not happen) has no ratio: the
 * spec's floor of 0.001 would print a change of 1000× per unit ("108000.000", "significant").
 */
function ratioRow(
  plan: SweepPlan,
  values: RunValues,
  name: string,
  metric: string,
  num: SweepConfig,
  den: SweepConfig,
): RatioRow {
  const perSeedRatios: RatioRow["per_seed"] = [];
  const both: [number, number][] = [];
  for (const s of plan.seeds) {
    const a = values.value(num, s, metric);
    const b = values.value(den, s, metric);
    if (a === null || b === null) {
      perSeedRatios.push({ seed: s, value: null });
      continue;
    }
    perSeedRatios.push(
      b === 0 ? { seed: s, value: null, baseline_zero: true } : { seed: s, value: clean(a / Math.max(b, 0.001)) },
    );
    both.push([a, b]);
  }
  const rs = perSeedRatios.map((x) => x.value).filter((v): v is number => v !== null);
  return {
    ratio: name,
    metric,
    numerator: num.label,
    denominator: den.label,
    per_seed: perSeedRatios,
    mean: rs.length > 0 ? mean(rs) : null,
    min: rs.length > 0 ? Math.min(...rs) : null,
    max: rs.length > 0 ? Math.max(...rs) : null,
    above_1: `${rs.filter((r) => r > 1).length}/${rs.length}`,
    below_1: `${rs.filter((r) => r < 1).length}/${rs.length}`,
    verdict: verdict(both),
  };
}

/**
 * Verdict labels (examples/experiments/README.md "Tables"): `equivalent` if |a−b|/max(a,b) < 5 % for every seed;
 * `significant`
 * if every per-seed change is > 20 % in the same direction; `inconclusive` if any seed changes by
 * < 10 %; otherwise `weak` (same direction, 10–20 %) or `mixed` (directions differ). A seed with
 * a denominator of 0 counts as unchanged when its numerator is 0 too, and otherwise makes the
 * verdict `n/a (baseline 0)`.
 */
export function verdict(pairsAB: readonly [number, number][]): string {
  if (pairsAB.length === 0) return "n/a";
  // A zero denominator gives no relative change: unchanged when the numerator is 0 too, else unknown.
  if (pairsAB.some(([a, b]) => b === 0 && a !== 0)) return ZERO_BASELINE;
  const rel = pairsAB.map(([a, b]) => {
    const m = Math.max(Math.abs(a), Math.abs(b));
    return m === 0 ? 0 : Math.abs(a - b) / m;
  });
  if (rel.every((x) => x < 0.05)) return "equivalent";
  const change = pairsAB.map(([a, b]) => (b === 0 ? 0 : a / Math.max(b, 0.001) - 1));
  if (change.every((c) => c > 0.2) || change.every((c) => c < -0.2)) return "significant";
  if (change.some((c) => Math.abs(c) < 0.1)) return "inconclusive";
  return change.every((c) => c > 0) || change.every((c) => c < 0) ? "weak" : "mixed";
}

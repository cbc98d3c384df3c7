// What identifies a plan's configurations and runs on disk: one directory per configuration, and
// hashes that decide whether the results already in an output directory can be reused.

import { canonicalHash } from "./canonical.js";
import type { SweepConfig, SweepPlan } from "./planTypes.js";

/** Sets each config's `dir`: its label made safe for file systems, unique even case-insensitively. */
export function assignDirs(configs: SweepConfig[]): void {
  const used = new Set<string>();
  for (const c of configs) {
    let d = c.label.replace(/[^A-Za-z0-9._,=+-]/g, "_").replace(/^\.+/, "_");
    if (d.length > 120) d = d.slice(0, 100) + "~" + canonicalHash(c.label).slice(0, 8);
    if (d === "") d = "config";
    let u = d;
    for (let k = 2; used.has(u.toLowerCase()); k++) u = `${d}~${k}`;
    used.add(u.toLowerCase());
    c.dir = u;
  }
}

/**
 * `runs`: identity of the runs (configuration inputs and seeds) — finished runs can be reused only
 * when it matches. `full`: the whole plan (also names, metrics, ratios, checks, timeout).
 */
export function planHashes(plan: SweepPlan): { full: string; runs: string } {
  const runs = canonicalHash({
    configs: plan.configs.map((c) => ({ label: c.label, input: c.input })),
    seeds: plan.seeds,
  });
  const full = canonicalHash({
    runs,
    name: plan.name,
    timeoutS: plan.timeoutS,
    axes: plan.axes,
    baseline: plan.baseline,
    metrics: plan.metrics,
    ratios: plan.ratios,
    checks: plan.checks,
  });
  return { full, runs };
}

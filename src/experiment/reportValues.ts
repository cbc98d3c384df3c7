// Metric values of finished runs, as every table reads them: only valid runs count, and each value
// is extracted once per (configuration, seed, metric).

import { extractMetric } from "./metrics.js";
import type { SweepConfig } from "./planTypes.js";
import { runKey, type RunRecord } from "./store.js";

export class RunValues {
  private readonly values = new Map<string, Record<string, number | null>>();

  constructor(private readonly records: ReadonlyMap<string, RunRecord>) {}

  /** The record of a run (`rep` 1 is the determinism repetition), if it finished. */
  record(c: SweepConfig, seed: number, rep = 0): RunRecord | undefined {
    return this.records.get(runKey(c.label, seed, rep));
  }

  /** The metric of the first repetition, or null when the run is missing, failed, or has no such value. */
  value(c: SweepConfig, seed: number, metric: string): number | null {
    const k = runKey(c.label, seed, 0);
    let v = this.values.get(k);
    if (v === undefined) {
      v = {};
      this.values.set(k, v);
    }
    if (!(metric in v)) {
      const r = this.record(c, seed);
      v[metric] =
        r !== undefined && r.status === "ok" && r.metrics !== null
          ? clean(extractMetric(metric, r.metrics, fitnessWeights(c)))
          : null;
    }
    return v[metric]!;
  }

  /** The metric over the valid seeds (failed or missing runs left out). */
  validValues(c: SweepConfig, seeds: readonly number[], metric: string): number[] {
    return seeds.map((s) => this.value(c, s, metric)).filter((v): v is number => v !== null);
  }
}

function fitnessWeights(c: SweepConfig): string {
  const w = (c.input as Record<string, unknown>)["fitnessWeights"];
  return typeof w === "string" ? w : "";
}

/** JSON has no NaN/Infinity: such values count as missing, as they would after a resume. */
export function clean(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : v;
}

export function mean(vs: number[]): number {
  let s = 0;
  for (const v of vs) s += v;
  return s / vs.length;
}

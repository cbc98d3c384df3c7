// Goodput of a finished run from its results file (`blis goodput`, docs/gateway.md "Comparing
// runs"): per class, the requests meeting every gated target among the file's records.
import type { RequestRecord } from "./collect.js";
import type { SloTargets } from "./sloTargets.js";

export interface RecordGoodput {
  cls: string;
  /** Records of the class (requests that reached an instance; rejected ones are not in the file). */
  count: number;
  good: number;
  attainment: number;
  goodputRps: number;
}

/** Per target class, in class order; `durationS` is the run's vllm_estimated_duration_s. */
export function goodputFromRecords(
  records: readonly RequestRecord[],
  targets: Readonly<Record<string, SloTargets>>,
  durationS: number,
): RecordGoodput[] {
  return Object.keys(targets)
    .sort()
    .map((cls) => {
      const t = targets[cls]!;
      let count = 0;
      let good = 0;
      for (const r of records) {
        if ((r.slo_class ?? "default") !== cls) continue;
        count++;
        const done = r.e2e_ms > 0;
        const ok =
          done &&
          (t.ttft_ms <= 0 || (r.ttft_ms > 0 && r.ttft_ms <= t.ttft_ms)) &&
          (t.itl_ms <= 0 || r.itl_ms <= t.itl_ms) &&
          (t.e2e_ms <= 0 || r.e2e_ms <= t.e2e_ms);
        if (ok) good++;
      }
      return {
        cls,
        count,
        good,
        attainment: count > 0 ? good / count : 0,
        goodputRps: durationS > 0 ? good / durationS : 0,
      };
    });
}

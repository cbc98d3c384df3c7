// Goodput comparison of `blis calibrate` (docs/calibration.md "Calibrate", "Goodput"): per SLO
// class, the fraction of requests meeting every configured target, measured vs simulated.
// Targets come from --slo-ttft/--slo-itl/--slo-e2e (`class=duration,...`) over the trace
// header's goodput_slo_targets.

export {
  mergeSloTargets,
  parseDurationMs,
  parseSloFlag,
  type SloFlagTargets,
  type SloTargets,
} from "../metrics/sloTargets.js";
import type { SloTargets } from "../metrics/sloTargets.js";

/** One request of the goodput population, all latencies in µs in the client frame. */
export interface GoodputSample {
  /** The pair's SLO class: the result's, else the trace row's ("" counts as "default"). */
  sloClass: string;
  realTtft: number;
  realE2e: number;
  /** Undefined when there is no ITL measurement for the request. */
  realItl: number | undefined;
  simTtft: number;
  simE2e: number;
  simItl: number | undefined;
}

export interface AttainmentByDim {
  ttft?: number;
  itl?: number;
  e2e?: number;
}

export interface GoodputClass {
  /** Requests of the class compared. */
  count: number;
  /** Fraction meeting every gated target. */
  real_slo_attainment: number;
  sim_slo_attainment: number;
  /** Per gated dimension: met / requests with a value for it. */
  real_attainment_by_dim: AttainmentByDim;
  sim_attainment_by_dim: AttainmentByDim;
}

export interface GoodputComparison {
  targets: Record<string, SloTargets>;
  per_class: Record<string, GoodputClass>;
  /** An ITL target is set but some request had no ITL value (it then counts as not met). */
  skipped_itl?: boolean;
}

const DIMS = [
  ["ttft", "ttft_ms"],
  ["itl", "itl_ms"],
  ["e2e", "e2e_ms"],
] as const;

export function compareGoodput(
  samples: readonly GoodputSample[],
  targets: Record<string, SloTargets>,
): GoodputComparison {
  let itlMissing = false;
  const perClass: Record<string, GoodputClass> = {};
  for (const cls of Object.keys(targets).sort()) {
    const t = targets[cls]!;
    const mine = samples.filter((s) => (s.sloClass === "" ? "default" : s.sloClass) === cls);
    const side = (
      pick: (s: GoodputSample) => { ttft: number; itl: number | undefined; e2e: number },
    ): [number, AttainmentByDim] => {
      let good = 0;
      const met = { ttft: 0, itl: 0, e2e: 0 };
      const seen = { ttft: 0, itl: 0, e2e: 0 };
      for (const s of mine) {
        const v = pick(s);
        let ok = true;
        for (const [dim, key] of DIMS) {
          const limitMs = t[key];
          if (limitMs <= 0) continue;
          const value = v[dim];
          if (value === undefined) {
            itlMissing = true;
            ok = false;
            continue;
          }
          seen[dim]++;
          if (value <= limitMs * 1000) met[dim]++;
          else ok = false;
        }
        if (ok) good++;
      }
      const byDim: AttainmentByDim = {};
      for (const [dim, key] of DIMS) if (t[key] > 0) byDim[dim] = seen[dim] > 0 ? met[dim] / seen[dim] : 0;
      return [mine.length > 0 ? good / mine.length : 0, byDim];
    };
    const [realAtt, realDim] = side((s) => ({ ttft: s.realTtft, itl: s.realItl, e2e: s.realE2e }));
    const [simAtt, simDim] = side((s) => ({ ttft: s.simTtft, itl: s.simItl, e2e: s.simE2e }));
    perClass[cls] = {
      count: mine.length,
      real_slo_attainment: realAtt,
      sim_slo_attainment: simAtt,
      real_attainment_by_dim: realDim,
      sim_attainment_by_dim: simDim,
    };
  }
  const out: GoodputComparison = { targets, per_class: perClass };
  if (itlMissing) out.skipped_itl = true;
  return out;
}

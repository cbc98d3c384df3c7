// SLO attainment and goodput per class (docs/gateway.md "Goodput"): the denominator is every
// arrival of the class, so rejected, shed, dropped and unfinished requests count as missed.
import type { RequestLedger } from "../core/ledger.js";
import type { SloTargets } from "./sloTargets.js";
import { meanMs, percentileMs, sortAsc } from "./stats.js";

export interface GoodputClassResult {
  count: number;
  e2e_p99_ms?: number;
  goodput_rps: number;
  itl_mean_ms?: number;
  slo_attainment: number;
  slo_attainment_by_dim: { e2e?: number; itl?: number; ttft?: number };
  ttft_p99_ms?: number;
}

export interface GoodputResult {
  goodput_rps?: number;
  slo_attainment?: number;
  per_class: Record<string, GoodputClassResult>;
}

const DIMS = ["e2e", "itl", "ttft"] as const;

type Limits = Record<(typeof DIMS)[number], number>;

/**
 * The completed requests of one class: their latencies, how many met each dimension's limit, and
 * how many met every limit (good). A limit <= 0 is not checked.
 */
function completedOfClass(ledger: RequestLedger, cls: string, limit: Limits) {
  const met: Limits = { ttft: 0, itl: 0, e2e: 0 };
  let good = 0;
  const ttft: number[] = [];
  const e2e: number[] = [];
  const itl: number[] = [];
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isCompleted(i) || (ledger.sloNames[ledger.slo[i]!] || "default") !== cls) continue;
    const v = { ttft: ledger.ttft[i]!, itl: ledger.itl[i]!, e2e: ledger.e2e[i]! };
    if (v.ttft >= 0) ttft.push(v.ttft);
    e2e.push(v.e2e);
    itl.push(v.itl);
    let ok = true;
    for (const d of DIMS) {
      if (limit[d] <= 0) continue;
      if (v[d] >= 0 && v[d] <= limit[d]) met[d]++;
      else ok = false;
    }
    if (ok) good++;
  }
  return { met, good, ttft, e2e, itl };
}

/**
 * Goodput of a run. `arrivals` counts arrivals by raw class ("" for none); `simEnded` is the
 * cluster's sim_ended in ticks.
 */
export function computeGoodput(
  ledger: RequestLedger,
  targets: Readonly<Record<string, SloTargets>>,
  arrivals: ReadonlyMap<string, number>,
  simEnded: number,
): GoodputResult {
  const duration = simEnded / 1e6;
  const perClass: Record<string, GoodputClassResult> = {};
  let good = 0;
  let injected = 0;
  for (const cls of Object.keys(targets).sort()) {
    const t = targets[cls]!;
    const limit = { ttft: t.ttft_ms * 1000, itl: t.itl_ms * 1000, e2e: t.e2e_ms * 1000 };
    const count = (arrivals.get(cls) ?? 0) + (cls === "default" ? (arrivals.get("") ?? 0) : 0);
    const { met, good: g, ttft, e2e, itl } = completedOfClass(ledger, cls, limit);
    const byDim: GoodputClassResult["slo_attainment_by_dim"] = {};
    // By dimension: met over the completed requests checked.
    for (const d of DIMS) if (limit[d] > 0) byDim[d] = e2e.length > 0 ? met[d] / e2e.length : 0;
    const r: GoodputClassResult = {
      count,
      goodput_rps: duration > 0 ? g / duration : 0,
      slo_attainment: count > 0 ? g / count : 0,
      slo_attainment_by_dim: byDim,
    };
    const e2eP99 = percentileMs(sortAsc(Float64Array.from(e2e)), 99);
    const itlMean = meanMs(sortAsc(Float64Array.from(itl)));
    const ttftP99 = percentileMs(sortAsc(Float64Array.from(ttft)), 99);
    perClass[cls] = withLatencies(r, e2eP99, itlMean, ttftP99);
    good += g;
    injected += count;
  }
  const out: GoodputResult = { per_class: perClass };
  const att = injected > 0 ? good / injected : 0;
  const rps = duration > 0 ? good / duration : 0;
  // Both omitted when 0, as in BLIS.
  return { ...(rps !== 0 ? { goodput_rps: rps } : {}), ...(att !== 0 ? { slo_attainment: att } : {}), ...out };
}

/** The class object with keys in alphabetical order; latency keys omitted when 0. */
function withLatencies(r: GoodputClassResult, e2eP99: number, itlMean: number, ttftP99: number): GoodputClassResult {
  return {
    count: r.count,
    ...(e2eP99 !== 0 ? { e2e_p99_ms: e2eP99 } : {}),
    goodput_rps: r.goodput_rps,
    ...(itlMean !== 0 ? { itl_mean_ms: itlMean } : {}),
    slo_attainment: r.slo_attainment,
    slo_attainment_by_dim: r.slo_attainment_by_dim,
    ...(ttftP99 !== 0 ? { ttft_p99_ms: ttftP99 } : {}),
  };
}

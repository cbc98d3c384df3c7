// Sustained throughput: completions per second while arrivals are still coming, without the
// warm-up and the drain (docs/behavior.md "Sustained throughput"). `responses_per_sec` divides by
// the whole run, drain included, so a run that keeps up with 200 req/s can read 175; this is the
// figure a capacity planner compares with the offered rate. An extension: never in the BLIS blocks.
import type { RequestLedger } from "../core/ledger.js";

/** Share of the arrival span always counted as warm-up. */
export const WARMUP_SPAN_SHARE = 0.1;

export interface SustainedWindow {
  /** Completions per second in the window; null when the window is empty. */
  perSec: number | null;
  /** The window, ticks: [first arrival + warm-up, last arrival]. */
  fromUs: number;
  toUs: number;
  warmupUs: number;
}

/** Share of completed requests whose service time the warm-up covers. */
export const WARMUP_SERVICE_QUANTILE = 0.99;

/** The q-quantile of a list (sorts it in place; rank q·(n − 1), linear between neighbours); 0 when empty. */
function quantile(v: Float64Array, q: number): number {
  if (v.length === 0) return 0;
  v.sort();
  const r = q * (v.length - 1);
  const lo = Math.floor(r);
  const hi = Math.min(lo + 1, v.length - 1);
  return v[lo]! + (v[hi]! - v[lo]!) * (r - lo);
}

/**
 * Completions whose completion time (arrival + E2E) lies in [t0 + W, t1], divided by that
 * window's length: t0 and t1 are the first and last arrival among the requests that reached an
 * instance; the warm-up W is the longer of 10 % of the arrival span and the 99th percentile of the
 * completed requests' service time (E2E − scheduling delay): by then nearly every request that
 * completes in the window arrived after t0, so a run that keeps up reads its arrival rate. Service
 * time, not E2E, so that queueing in an overloaded run does not swallow the window. A window
 * shorter than the warm-up (an arrival span under twice the warm-up) has no value.
 */
export function sustainedWindow(ledger: RequestLedger): SustainedWindow {
  let t0 = Infinity;
  let t1 = -Infinity;
  let done = 0;
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isRegistered(i)) continue;
    const a = ledger.arrival[i]!;
    if (a < t0) t0 = a;
    if (a > t1) t1 = a;
    if (ledger.isCompleted(i)) done++;
  }
  if (!(t1 > t0)) return { perSec: null, fromUs: 0, toUs: 0, warmupUs: 0 };
  const service = new Float64Array(done);
  let k = 0;
  for (let i = 0; i < ledger.size; i++)
    if (ledger.isCompleted(i)) service[k++] = ledger.e2e[i]! - Math.max(0, ledger.sched[i]!);
  const warmupUs = Math.max(WARMUP_SPAN_SHARE * (t1 - t0), quantile(service, WARMUP_SERVICE_QUANTILE));
  const from = t0 + warmupUs;
  // A steady stretch shorter than the warm-up says little: too few completions, too close to the start.
  if (!(t1 - from >= warmupUs && t1 > from)) return { perSec: null, fromUs: from, toUs: t1, warmupUs };
  let n = 0;
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isCompleted(i)) continue;
    const end = ledger.arrival[i]! + ledger.e2e[i]!;
    if (end >= from && end <= t1) n++;
  }
  return { perSec: n / ((t1 - from) / 1e6), fromUs: from, toUs: t1, warmupUs };
}

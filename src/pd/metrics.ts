// The `=== PD Metrics ===` block (docs/prefill-decode.md "The PD metrics block").
import { formatFixed } from "../util/goFormat.js";

/** Raw-tick summary of one distribution. */
export interface PdDistribution {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
}

export interface PdMetrics {
  prefillInstances: number;
  decodeInstances: number;
  sharedInstances: number;
  /** Split requests that reached the transfer stage (delivered or dropped at the decode side). */
  disaggregated: number;
  /**
   * Decode sub-requests that reached a decode instance: instances count them on top of the user
   * requests (Σ instance injected = cluster injected + this).
   */
  decodeSubRequests: number;
  /** Split requests dropped because their decode instance could not hold the KV. */
  droppedAtDecode: number;
  /** Sub-request completions per second on prefill-capable (resp. decode-capable) instances. */
  prefillThroughput: number;
  decodeThroughput: number;
  /** max / min of the two throughputs; null when exactly one is 0. */
  loadImbalance: number | null;
  /** User-level TTFT of served split requests, ticks. */
  parentTtft: PdDistribution;
  /** KV transfer durations, ticks. */
  transfer: PdDistribution;
  /** Every transfer duration (reports); absent in stored results. */
  transfers?: number[];
  contention: { peak: number; meanDepth: number } | null;
}

/** Mean and linearly interpolated percentiles of unsorted tick values. */
export function distribution(values: readonly number[]): PdDistribution {
  const v = Float64Array.from(values).sort();
  const n = v.length;
  if (n === 0) return { count: 0, mean: 0, p50: 0, p95: 0, p99: 0 };
  let s = 0;
  for (let i = 0; i < n; i++) s += v[i]!;
  const pct = (p: number): number => {
    const r = (p / 100) * (n - 1);
    const lo = Math.floor(r);
    const hi = Math.ceil(r);
    return v[lo]! + (r - lo) * (v[hi]! - v[lo]!);
  };
  return { count: n, mean: s / n, p50: pct(50), p95: pct(95), p99: pct(99) };
}

const dist = (d: PdDistribution): string =>
  `mean=${formatFixed(d.mean, 1)} p50=${formatFixed(d.p50, 1)} p95=${formatFixed(d.p95, 1)} p99=${formatFixed(d.p99, 1)}`;

export function renderPdMetrics(m: PdMetrics): string {
  let out =
    "=== PD Metrics ===\n" +
    `Disaggregated Requests: ${m.disaggregated}\n` +
    `Dropped at Decode KV: ${m.droppedAtDecode}\n` +
    `Prefill Throughput: ${formatFixed(m.prefillThroughput, 4)} sub-req/s\n` +
    `Decode Throughput: ${formatFixed(m.decodeThroughput, 4)} sub-req/s\n` +
    (m.loadImbalance === null
      ? "Load Imbalance Ratio: inf (one pool idle)\n"
      : `Load Imbalance Ratio: ${formatFixed(m.loadImbalance, 4)}\n`);
  if (m.parentTtft.count > 0) out += `Parent TTFT (us): ${dist(m.parentTtft)}\n`;
  if (m.transfer.count > 0) out += `KV Transfer Duration (us): ${dist(m.transfer)}\n`;
  if (m.contention !== null) {
    out += `Peak Concurrent Transfers: ${m.contention.peak}\nMean Transfer Queue Depth: ${formatFixed(m.contention.meanDepth, 4)}\n`;
  }
  return out;
}

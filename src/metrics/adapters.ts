// Per-adapter metrics of LoRA runs (docs/lora.md "Output"): the cluster block's `adapters` key and
// the stdout block that prints it.

import type { RequestLedger } from "../core/ledger.js";
import type { Instance } from "../instance/instance.js";
import { percentileIn, sortAsc } from "./stats.js";

export interface AdapterMetrics {
  load_count: number;
  eviction_count: number;
  ttft_p50_us: number;
  ttft_p99_us: number;
  /** Requested output tokens of the adapter's completed requests per second of the run. */
  throughput_tok_per_s: number;
}

/**
 * Adapter ID → metrics, sorted by ID: loads and evictions summed over the instances, TTFT and
 * throughput over the completed requests of the adapter. Null when no adapter saw any activity.
 */
export function adapterMetrics(
  instances: readonly Instance[],
  ledger: RequestLedger,
  durationS: number,
): Record<string, AdapterMetrics> | null {
  const loads = new Map<string, { loads: number; evictions: number }>();
  for (const inst of instances) {
    if (inst.lora === null) continue;
    for (const [id, c] of inst.lora.counts) {
      const sum = loads.get(id) ?? { loads: 0, evictions: 0 };
      sum.loads += c.loads;
      sum.evictions += c.evictions;
      loads.set(id, sum);
    }
  }
  const ttfts = new Map<number, number[]>();
  const tokens = new Map<number, number>();
  for (let i = 0; i < ledger.size; i++) {
    const a = ledger.adapter[i]!;
    if (a === 0 || !ledger.isCompleted(i)) continue;
    let list = ttfts.get(a);
    if (list === undefined) ttfts.set(a, (list = []));
    if (ledger.ttft[i]! >= 0) list.push(ledger.ttft[i]!);
    tokens.set(a, (tokens.get(a) ?? 0) + ledger.outputLen[i]!);
  }
  const ids = new Set<string>(loads.keys());
  for (const a of ttfts.keys()) ids.add(ledger.adapterNames[a]!);
  if (ids.size === 0) return null;
  const byName = new Map<string, number>(ledger.adapterNames.map((n, k) => [n, k]));
  const out: Record<string, AdapterMetrics> = {};
  for (const id of [...ids].sort()) {
    const k = byName.get(id) ?? -1;
    const sorted = sortAsc(Float64Array.from(ttfts.get(k) ?? []));
    const c = loads.get(id) ?? { loads: 0, evictions: 0 };
    out[id] = {
      load_count: c.loads,
      eviction_count: c.evictions,
      ttft_p50_us: percentileIn(sorted, 50, 1),
      ttft_p99_us: percentileIn(sorted, 99, 1),
      throughput_tok_per_s: durationS > 0 ? (tokens.get(k) ?? 0) / durationS : 0,
    };
  }
  return out;
}

/** The `=== LoRA Adapters ===` stdout block (an extension: BLIS prints the metrics JSON key only). */
export function renderAdapters(m: Readonly<Record<string, AdapterMetrics>>): string {
  const ids = Object.keys(m);
  let loads = 0;
  let evictions = 0;
  for (const id of ids) {
    loads += m[id]!.load_count;
    evictions += m[id]!.eviction_count;
  }
  let s = "=== LoRA Adapters ===\n";
  s += `Adapters: ${ids.length}, Cold Loads: ${loads}, Evictions: ${evictions}\n`;
  for (const id of ids) {
    const a = m[id]!;
    s += `  ${id}: loads=${a.load_count} evictions=${a.eviction_count} TTFT p50=${a.ttft_p50_us.toFixed(0)}us`;
    s += ` p99=${a.ttft_p99_us.toFixed(0)}us throughput=${a.throughput_tok_per_s.toFixed(2)} tok/s\n`;
  }
  return s;
}

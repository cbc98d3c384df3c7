// The detectors on a finished simulation: its completed requests in, the `saturation` key of the
// cluster metrics out (docs/saturation.md "Final label and output").
import type { RequestLedger } from "../core/ledger.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import { analyzeSaturation, type CompletedRequest, type OpenRequest, type SaturationAnalysis } from "./analyze.js";
import type { SaturationPlan } from "./config.js";
import type { TraceRecord } from "../workload/index.js";

/** The `ok` rows of an observed trace: arrival as planned, E2E from send to last chunk. */
export function observedRequests(records: readonly TraceRecord[]): CompletedRequest[] {
  return records
    .filter((r) => r.status === "ok")
    .map((r) => ({
      id: `request_${r.request_id}`,
      arrivedAtS: r.arrival_time_us / 1e6,
      e2eMs: (r.last_chunk_time_us - r.send_time_us) / 1000,
    }));
}

export function completedRequests(ledger: RequestLedger): CompletedRequest[] {
  const out: CompletedRequest[] = [];
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isCompleted(i)) continue;
    out.push({ id: ledger.id(i), arrivedAtS: ledger.arrival[i]! / 1e6, e2eMs: ledger.e2e[i]! / 1000 });
  }
  return out;
}

/** Requests that reached an instance and were still queued or running when the run ended. */
export function openRequests(ledger: RequestLedger): OpenRequest[] {
  const out: OpenRequest[] = [];
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isRegistered(i) || ledger.isCompleted(i) || ledger.isTimedOut(i)) continue;
    out.push({ id: ledger.id(i), arrivedAtS: ledger.arrival[i]! / 1e6 });
  }
  return out;
}

/**
 * Completions per arrival over the second half of the arrival span, [T/2, T] with T the last
 * arrival: about 1 in a steady state whatever the latency (unlike completions over the whole run,
 * which lose the requests still finishing after T), and capacity ÷ rate past saturation.
 */
export function steadyCompletionRatio(ledger: RequestLedger): number {
  let last = -Infinity;
  for (let i = 0; i < ledger.size; i++) last = Math.max(last, ledger.arrival[i]!);
  const from = last / 2;
  let arrivals = 0;
  let completions = 0;
  for (let i = 0; i < ledger.size; i++) {
    const a = ledger.arrival[i]!;
    if (a >= from && a <= last) arrivals++;
    if (!ledger.isCompleted(i)) continue;
    const done = a + ledger.e2e[i]!;
    if (done >= from && done <= last) completions++;
  }
  return arrivals > 0 ? completions / arrivals : 1;
}

/** Runs the detectors and adds `saturation` to the block, before the goodput keys (their JSON order). */
export function labelRun(
  ledger: RequestLedger,
  plan: SaturationPlan,
  block: MetricsBlock,
  warn: (m: string) => void,
): { block: MetricsBlock; analysis: SaturationAnalysis } {
  const open = plan.countOpen === true ? openRequests(ledger) : [];
  const analysis = analyzeSaturation(completedRequests(ledger), plan, warn, open);
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const [k, v] of Object.entries(block)) {
    if (!placed && (k === "goodput_rps" || k === "slo_attainment" || k === "per_class")) {
      out["saturation"] = analysis.final;
      placed = true;
    }
    out[k] = v;
  }
  if (!placed) out["saturation"] = analysis.final;
  return { block: out as unknown as MetricsBlock, analysis };
}

import type { SimulationMetrics } from "./collect.js";
import type { MetricsBlock } from "./metricsBlock.js";
import type { FitnessResult } from "./fitness.js";
import { formatFixed, goJson } from "../util/goFormat.js";
import { renderSessionMetrics } from "./sessions.js";
import { gatewayAnomalies, gatewayLines, shedLines } from "./gatewayOutput.js";
import { renderTenantMetrics } from "./tenants.js";
import { renderPdMetrics } from "../pd/metrics.js";

export function renderMetricsBlock(b: MetricsBlock | PrintedBlock): string {
  return `=== Simulation Metrics ===\n${goJson(b)}\n`;
}

const E2E_ITL_KEYS = [
  "e2e_mean_ms",
  "e2e_p90_ms",
  "e2e_p95_ms",
  "e2e_p99_ms",
  "itl_mean_ms",
  "itl_p90_ms",
  "itl_p95_ms",
  "itl_p99_ms",
] as const;
const TTFT_KEYS = ["ttft_mean_ms", "ttft_p90_ms", "ttft_p95_ms", "ttft_p99_ms"] as const;

/** A metrics block whose latencies may be null (no request has a value). */
export type PrintedBlock = Omit<
  MetricsBlock,
  (typeof E2E_ITL_KEYS)[number] | (typeof TTFT_KEYS)[number] | "scheduling_delay_p99_ms"
> &
  Record<(typeof E2E_ITL_KEYS)[number] | (typeof TTFT_KEYS)[number] | "scheduling_delay_p99_ms", number | null>;

/**
 * The cluster block as stdout shows it. With completions it is the BLIS block. Without any, BLIS
 * prints nothing (docs/behavior.md#c14); here the counts are printed and each latency with no
 * sample is null rather than a 0 that reads like a measurement. Key order is unchanged.
 */
export function printedClusterBlock(m: SimulationMetrics): MetricsBlock | PrintedBlock {
  const b = m.cluster;
  if (b.completed_requests > 0) return b;
  const out: PrintedBlock = { ...b };
  // Only completed requests have an E2E, and only they contribute ITL entries.
  for (const k of E2E_ITL_KEYS) out[k] = null;
  const s = m.clusterSamples;
  if (s !== undefined ? s.ttft === 0 : b.ttft_mean_ms === 0) for (const k of TTFT_KEYS) out[k] = null;
  if (s !== undefined ? s.schedulingDelay === 0 : b.scheduling_delay_p99_ms === 0) out.scheduling_delay_p99_ms = null;
  return out;
}

/** Blocks printed before the results file is written (docs/behavior.md "Output, in order", item 1). */
export function renderMetricBlocks(m: SimulationMetrics): string {
  let out = "";
  if (m.numInstances > 1) {
    for (const b of m.instances) if (b.completed_requests > 0) out += renderMetricsBlock(b);
  }
  return out + renderMetricsBlock(printedClusterBlock(m));
}

export function renderFitness(f: FitnessResult): string {
  let out = `=== Fitness Evaluation ===\nScore: ${formatFixed(f.score, 6)}\n`;
  for (const [k, v] of f.components) out += `  ${k}: ${formatFixed(v, 6)}\n`;
  return out;
}

/** Today's timeout lines, only in runs with client deadlines (seed-era blocks stay as they were). */
function timeoutLines(a: SimulationMetrics["anomalies"]): string {
  if (a.deadlines !== true) return "";
  return `Timed Out Requests: ${a.timedOut ?? 0}\nLength-Capped Requests: 0\n`;
}

export interface TailOptions {
  printFairness: boolean;
  summarizeTrace: boolean;
}

/** Blocks after the fitness block (docs/behavior.md "Output, in order", items 3-7). */
export function renderTail(m: SimulationMetrics, opts: TailOptions): string {
  let out = anomalyBlock(m) + kvCacheBlock(m.kv) + perSloBlock(m);
  if (opts.printFairness) {
    out += `=== Fairness ===\nJain Index (tenants): ${formatFixed(m.tenantFairness, 4)}\n`;
  }
  if (m.tenants !== undefined && m.tenants !== null) out += renderTenantMetrics(m.tenants);
  if (m.sessions !== undefined && m.sessions !== null) out += renderSessionMetrics(m.sessions);
  if (m.pd !== undefined && m.pd !== null) out += renderPdMetrics(m.pd);
  if (opts.summarizeTrace && m.trace !== null) out += traceSummaryBlock(m.trace);
  return out;
}

/** The anomaly counters; empty when every counter is zero. */
function anomalyBlock(m: SimulationMetrics): string {
  const a = m.anomalies;
  const routing = a.routingRejections ?? 0;
  const g = m.gateway;
  const timedOut = a.timedOut ?? 0;
  const anyAnomaly =
    a.priorityInversions > 0 ||
    a.holBlocking > 0 ||
    a.rejected > 0 ||
    a.droppedUnservable > 0 ||
    routing > 0 ||
    timedOut > 0 ||
    gatewayAnomalies(g);
  if (!anyAnomaly) return "";
  return (
    "=== Anomaly Counters ===\n" +
    `Priority Inversions: ${a.priorityInversions}\n` +
    `HOL Blocking Events: ${a.holBlocking}\n` +
    `Rejected Requests: ${a.rejected}\n` +
    shedLines(g) +
    // Only when > 0, so that runs without routing rejections print the seed block.
    (routing > 0 ? `Rejected Requests (Routing): ${routing}\n` : "") +
    `Dropped Unservable: ${a.droppedUnservable}\n` +
    timeoutLines(a) +
    gatewayLines(g)
  );
}

/** The KV cache rates; empty when all three are zero. */
function kvCacheBlock(kv: SimulationMetrics["kv"]): string {
  if (kv.preemptionRate === 0 && kv.cacheHitRate === 0 && kv.kvThrashingRate === 0) return "";
  let out =
    "=== KV Cache Metrics ===\n" +
    `Preemption Rate: ${formatFixed(kv.preemptionRate, 4)}\n` +
    `Cache Hit Rate: ${formatFixed(kv.cacheHitRate, 4)}\n` +
    `KV Thrashing Rate: ${formatFixed(kv.kvThrashingRate, 4)}\n`;
  // Extension: CPU-tier counters, printed only when a CPU tier is configured.
  if (kv.tiered !== null) {
    out +=
      `KV Offloads: ${kv.tiered.offloads}\n` +
      `KV Reloads: ${kv.tiered.reloads}\n` +
      `CPU Tier Misses: ${kv.tiered.cpuMisses}\n`;
  }
  return out;
}

/** Latencies per SLO class; only with several classes, or with goodput targets (then even for one class). */
function perSloBlock(m: SimulationMetrics): string {
  if (!(m.perSlo.length > 1 || (m.goodputConfigured === true && m.perSlo.length > 0))) return "";
  let out = "=== Per-SLO Metrics ===\n";
  for (const e of m.perSlo) {
    out +=
      `  ${e.sloClass}:\n` +
      `    TTFT: mean=${formatFixed(e.ttft.mean, 2)} p99=${formatFixed(e.ttft.p99, 2)} (n=${e.ttft.count})\n` +
      `    E2E:  mean=${formatFixed(e.e2e.mean, 2)} p99=${formatFixed(e.e2e.p99, 2)} (n=${e.e2e.count})\n`;
  }
  return out;
}

function traceSummaryBlock(t: NonNullable<SimulationMetrics["trace"]>): string {
  let out =
    "=== Trace Summary ===\n" +
    `Total Decisions: ${t.totalDecisions}\n` +
    `  Admitted: ${t.admitted}\n` +
    `  Rejected: ${t.rejected}\n` +
    `Unique Targets: ${t.uniqueTargets}\n`;
  if (t.targetDistribution.length > 0) {
    out += "Target Distribution:\n";
    for (const [id, c] of t.targetDistribution) out += `  ${id}: ${c}\n`;
  }
  out += `Mean Regret: ${formatFixed(t.meanRegret, 6)}\nMax Regret: ${formatFixed(t.maxRegret, 6)}\n`;
  // Only autoscaled runs have scaling events (docs/autoscaling.md "Outputs").
  if (t.scaling !== undefined) {
    out += `Scaling Events: ${t.scaling.length}\n`;
    for (const e of t.scaling) out += `  t=${e.clock} ${e.kind} ${e.instance}: ${e.reason}\n`;
  }
  return out;
}

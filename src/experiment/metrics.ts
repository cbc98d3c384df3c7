// Per-run values a sweep can tabulate (examples/experiments/README.md "Metric names"), read from the structured results
// of a run
// (never from its text output).

import type { SimulationMetrics } from "../metrics/collect.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import { FITNESS_KEYS, evaluateFitness, parseFitnessWeights } from "../metrics/fitness.js";
import { GATEWAY_METRICS, gatewayMetric, gatewayMetricProblem } from "./gatewayMetrics.js";

export const DEFAULT_METRICS = [
  "ttft_mean",
  "ttft_p99",
  "e2e_mean",
  "e2e_p99",
  "sustained_throughput",
  "throughput",
  "completed",
] as const;

/** Names backed by a metrics block (cluster, or `instance_<k>.` + name for one instance). */
const BLOCK_METRICS: Record<string, keyof MetricsBlock> = {
  ttft_mean: "ttft_mean_ms",
  ttft_p90: "ttft_p90_ms",
  ttft_p95: "ttft_p95_ms",
  ttft_p99: "ttft_p99_ms",
  e2e_mean: "e2e_mean_ms",
  e2e_p90: "e2e_p90_ms",
  e2e_p95: "e2e_p95_ms",
  e2e_p99: "e2e_p99_ms",
  itl_mean: "itl_mean_ms",
  itl_p90: "itl_p90_ms",
  itl_p95: "itl_p95_ms",
  itl_p99: "itl_p99_ms",
  sched_delay_p99: "scheduling_delay_p99_ms",
  throughput: "responses_per_sec",
  tokens_per_sec: "tokens_per_sec",
  duration_s: "vllm_estimated_duration_s",
  completed: "completed_requests",
  injected: "injected_requests",
  still_queued: "still_queued",
  still_running: "still_running",
  dropped_unservable: "dropped_unservable",
  preemption_count: "preemption_count",
  total_input_tokens: "total_input_tokens",
  total_output_tokens: "total_output_tokens",
  kv_allocation_failures: "kv_allocation_failures",
};

type Extract = (m: SimulationMetrics) => number | null;

/** CPU-tier counters (0 for a single-tier KV cache). */
const kvTier =
  (k: "offloads" | "reloads" | "cpuHits" | "cpuMisses"): Extract =>
  (m) =>
    m.kv.tiered?.[k] ?? 0;

/** A KV transfer duration statistic, ms (null without transfers). */
const pdTransfer =
  (k: "mean" | "p50" | "p95" | "p99"): Extract =>
  (m) => {
    const d = m.pd?.transfer;
    return d === undefined || d.count === 0 ? null : d[k] / 1000;
  };

/** A LoRA count summed over the adapters (0 without adapter activity, docs/lora.md). */
const loraSum =
  (k: "load_count" | "eviction_count"): Extract =>
  (m) =>
    Object.values(m.cluster.adapters ?? {}).reduce((s, a) => s + a[k], 0);

/** Run-level names (cluster scope) that are not block fields. */
const RUN_METRICS: Record<string, Extract> = {
  preemption_rate: (m) => m.kv.preemptionRate,
  cache_hit_rate: (m) => m.kv.cacheHitRate,
  kv_thrashing_rate: (m) => m.kv.kvThrashingRate,
  kv_offloads: kvTier("offloads"),
  kv_reloads: kvTier("reloads"),
  cpu_tier_hits: kvTier("cpuHits"),
  cpu_tier_misses: kvTier("cpuMisses"),
  rejected: (m) => m.anomalies.rejected,
  priority_inversions: (m) => m.anomalies.priorityInversions,
  hol_blocking: (m) => m.anomalies.holBlocking,
  dropped: (m) => m.anomalies.droppedUnservable,
  decisions: (m) => m.trace?.totalDecisions ?? null,
  admitted: (m) => m.trace?.admitted ?? null,
  trace_rejected: (m) => m.trace?.rejected ?? null,
  unique_targets: (m) => m.trace?.uniqueTargets ?? null,
  mean_regret: (m) => m.trace?.meanRegret ?? null,
  max_regret: (m) => m.trace?.maxRegret ?? null,
  generated: (m) => m.generated,
  // Completions per second between the warm-up and the last arrival (docs/behavior.md "Sustained throughput").
  sustained_throughput: (m) => m.sustainedResponsesPerSec ?? null,
  // Completions per arrival over the second half of the arrivals (runs with --detectors only).
  steady_completion_ratio: (m) => m.steadyCompletionRatio ?? null,
  routed: (m) => m.routed,
  jain_fairness: (m) => m.tenantFairness,
  // Prefill/decode disaggregation (docs/prefill-decode.md "The PD metrics block"); empty without it.
  pd_disaggregated: (m) => m.pd?.disaggregated ?? null,
  pd_dropped_at_decode: (m) => m.pd?.droppedAtDecode ?? null,
  pd_prefill_throughput: (m) => m.pd?.prefillThroughput ?? null,
  pd_decode_throughput: (m) => m.pd?.decodeThroughput ?? null,
  pd_transfer_mean: pdTransfer("mean"),
  pd_transfer_p50: pdTransfer("p50"),
  pd_transfer_p95: pdTransfer("p95"),
  pd_transfer_p99: pdTransfer("p99"),
  lora_loads: loraSum("load_count"),
  lora_evictions: loraSum("eviction_count"),
  // Speculative decoding (docs/speculative.md "Metrics"); empty without it.
  tpot_mean: (m) => m.cluster.speculative?.tpot_mean_ms ?? null,
  tpot_p99: (m) => m.cluster.speculative?.tpot_p99_ms ?? null,
  spec_acceptance_length: (m) => m.cluster.speculative?.mean_acceptance_length ?? null,
  spec_tokens_per_step: (m) => m.cluster.speculative?.tokens_per_step ?? null,
};

/** Per-SLO-class fields; values are in ticks (µs), as in the per-SLO block (docs/behavior.md "The metrics block"). */
const SLO_FIELDS = [
  "ttft_mean",
  "ttft_p50",
  "ttft_p95",
  "ttft_p99",
  "ttft_n",
  "e2e_mean",
  "e2e_p50",
  "e2e_p95",
  "e2e_p99",
  "e2e_n",
  "n",
];

const INSTANCE_RE = /^instance_(\d+)\.(.+)$/;
const SLO_RE = /^per_slo\.([^.]+)\.([a-z0-9_]+)$/;
const TARGET_RE = /^target\.(.+)$/;
const FITNESS_RE = /^fitness\.(.+)$/;

/** Every fixed metric name (patterns come on top: instance_<k>.*, per_slo.<class>.*, target.*, fitness.*). */
export function fixedMetricNames(): string[] {
  return [...Object.keys(BLOCK_METRICS), ...Object.keys(RUN_METRICS), ...Object.keys(GATEWAY_METRICS), "fitness"];
}

/** null when `name` is a valid metric, else the reason. */
export function metricProblem(name: string): string | null {
  if (name in BLOCK_METRICS || name in RUN_METRICS || name === "fitness") return null;
  const gw = gatewayMetricProblem(name);
  if (gw !== undefined) return gw;
  let m = INSTANCE_RE.exec(name);
  if (m) return m[2]! in BLOCK_METRICS ? null : `unknown per-instance metric "${m[2]}"`;
  m = SLO_RE.exec(name);
  if (m) return SLO_FIELDS.includes(m[2]!) ? null : `unknown per-SLO field "${m[2]}" (valid: ${SLO_FIELDS.join(", ")})`;
  if (name.startsWith("per_slo.")) return `per-SLO metrics are per_slo.<class>.<field>`;
  if (TARGET_RE.test(name)) return null;
  m = FITNESS_RE.exec(name);
  if (m)
    return (FITNESS_KEYS as readonly string[]).includes(m[1]!)
      ? null
      : `unknown fitness component "${m[1]}" (valid: ${FITNESS_KEYS.join(", ")})`;
  if (name === "requests") return `"requests" (per-request records) is not a tabular metric`;
  return "unknown metric";
}

/**
 * The value of one metric for one finished run; null when the run has no such value (a per-SLO
 * class that did not occur, a trace metric without tracing, fitness without weights, an instance
 * index beyond the cluster).
 */
export function extractMetric(name: string, m: SimulationMetrics, fitnessWeights: string): number | null {
  const block = BLOCK_METRICS[name];
  if (block !== undefined) return blockValue(m.cluster, block);
  const run = RUN_METRICS[name];
  if (run !== undefined) return run(m);
  const gw = gatewayMetric(name, m);
  if (gw !== undefined) return gw;
  let g = INSTANCE_RE.exec(name);
  if (g) {
    const b = m.instances[Number(g[1])];
    const key = BLOCK_METRICS[g[2]!];
    return b === undefined || key === undefined ? null : blockValue(b, key);
  }
  g = SLO_RE.exec(name);
  if (g) return sloMetric(g[1]!, g[2]!, m);
  g = TARGET_RE.exec(name);
  if (g) return targetShare(g[1]!, m);
  if (name === "fitness" || FITNESS_RE.test(name)) return fitnessMetric(name, m, fitnessWeights);
  return null;
}

/** A per-SLO-class field (count, or a TTFT/E2E statistic); null when the class did not occur. */
function sloMetric(sloClass: string, field: string, m: SimulationMetrics): number | null {
  const e = m.perSlo.find((x) => x.sloClass === sloClass);
  if (e === undefined) return null;
  if (field === "n" || field === "e2e_n") return e.e2e.count;
  if (field === "ttft_n") return e.ttft.count;
  const d = field.startsWith("ttft_") ? e.ttft : e.e2e;
  const stat = field.slice(field.indexOf("_") + 1) as "mean" | "p50" | "p95" | "p99";
  return d[stat];
}

/** How many requests went to one routing target; null without a trace. */
function targetShare(target: string, m: SimulationMetrics): number | null {
  if (m.trace === null) return null;
  const hit = m.trace.targetDistribution.find(([id]) => id === target);
  return hit === undefined ? 0 : hit[1];
}

/** The fitness score or one of its components; null without weights or when they do not parse. */
function fitnessMetric(name: string, m: SimulationMetrics, fitnessWeights: string): number | null {
  if (fitnessWeights === "") return null;
  let res;
  try {
    res = evaluateFitness(m, parseFitnessWeights(fitnessWeights));
  } catch {
    return null;
  }
  if (name === "fitness") return res.score;
  const comp = res.components.find(([k]) => k === name.slice("fitness.".length));
  return comp === undefined ? null : comp[1];
}

function blockValue(b: MetricsBlock, key: keyof MetricsBlock): number | null {
  const v = b[key];
  if (v === undefined) return key === "kv_allocation_failures" ? 0 : null;
  return typeof v === "number" ? v : null;
}

// Units and the better direction of sweep metric names (src/experiment/metrics.ts), for axis
// labels and the Pareto front.

const UNITS: Record<string, string> = {
  sustained_throughput: "req/s",
  throughput: "req/s",
  tokens_per_sec: "tokens/s",
  duration_s: "s",
  completed: "requests",
  injected: "requests",
  still_queued: "requests",
  still_running: "requests",
  dropped_unservable: "requests",
  dropped: "requests",
  rejected: "requests",
  generated: "requests",
  routed: "requests",
  admitted: "requests",
  trace_rejected: "requests",
  preemption_count: "",
  total_input_tokens: "tokens",
  total_output_tokens: "tokens",
  kv_allocation_failures: "failures",
  preemption_rate: "per request",
  cache_hit_rate: "fraction",
  kv_thrashing_rate: "fraction",
  kv_offloads: "blocks",
  kv_reloads: "blocks",
  cpu_tier_hits: "blocks",
  cpu_tier_misses: "blocks",
  priority_inversions: "count",
  hol_blocking: "count",
  decisions: "decisions",
  unique_targets: "instances",
  mean_regret: "score",
  max_regret: "score",
  jain_fairness: "index",
  fitness: "score",
};

/** Names where a larger value is better (everything else: smaller is better). */
const HIGHER_BETTER = new Set([
  "sustained_throughput",
  "throughput",
  "tokens_per_sec",
  "completed",
  "cache_hit_rate",
  "cpu_tier_hits",
  "jain_fairness",
  "fitness",
  "admitted",
  "routed",
  "total_output_tokens",
  "injected",
]);

function base(name: string): string {
  const inst = /^instance_\d+\.(.+)$/.exec(name);
  return inst !== null ? inst[1]! : name;
}

/** The unit of a metric's values, e.g. "ms", "req/s" ("" when it has none worth printing). */
export function metricUnit(name: string): string {
  const b = base(name);
  if (/^(ttft|e2e|itl)_(mean|p90|p95|p99)$/.test(b) || b === "sched_delay_p99") return "ms";
  const slo = /^per_slo\.[^.]+\.([a-z0-9_]+)$/.exec(name);
  if (slo !== null) return /_n$|^n$/.test(slo[1]!) ? "requests" : "µs";
  if (name.startsWith("target.")) return "decisions";
  if (name.startsWith("fitness.")) return "score";
  const tenant = /^tenant\.[^.]+\.([a-z_]+)$/.exec(name);
  if (tenant !== null) return tenant[1] === "output_tokens" ? "tokens" : (UNITS[tenant[1]!] ?? "");
  return UNITS[b] ?? "";
}

export function higherIsBetter(name: string): boolean {
  const b = base(name);
  if (name.startsWith("fitness") || name.startsWith("tenant.")) return true;
  if (/^per_slo\.[^.]+\.(n|ttft_n|e2e_n)$/.test(name)) return true;
  return HIGHER_BETTER.has(b);
}

/** Axis title: "ttft_p99 (ms)". */
export function metricLabel(name: string): string {
  const u = metricUnit(name);
  return u === "" ? name : `${name} (${u})`;
}

// Sweep metrics of the gateway and goodput (examples/experiments/README.md "Metric names"): read
// from a run's structured results; 0 or empty when the run used none of it.
import type { SimulationMetrics } from "../metrics/collect.js";
import type { GoodputClassResult } from "../metrics/goodput.js";

type Extract = (m: SimulationMetrics) => number | null;

export const GATEWAY_METRICS: Record<string, Extract> = {
  goodput_rps: (m) => (m.goodputConfigured === true ? (m.cluster.goodput_rps ?? 0) : null),
  slo_attainment: (m) => (m.goodputConfigured === true ? (m.cluster.slo_attainment ?? 0) : null),
  gateway_rejected: (m) => m.gateway?.rejected ?? 0,
  gateway_shed: (m) => m.gateway?.shed ?? 0,
  gateway_expired: (m) => m.gateway?.expired ?? 0,
  gateway_timed_out: (m) => m.gateway?.timedOut ?? 0,
  gateway_evicted: (m) => m.gateway?.evicted ?? 0,
  gateway_depth: (m) => m.gateway?.depth ?? 0,
};

const GOODPUT_FIELDS = ["count", "goodput_rps", "slo_attainment", "ttft_p99_ms", "e2e_p99_ms", "itl_mean_ms"] as const;
const GOODPUT_RE = /^goodput\.([^.]+)\.([a-z0-9_]+)$/;
const SHED_RE = /^shed\.([^.]+)$/;
const TENANT_FIELDS = ["completed", "output_tokens", "tokens_per_sec"] as const;
const TENANT_RE = /^tenant\.([^.]+)\.([a-z_]+)$/;

/** null when `name` is a gateway metric pattern; a reason when it looks like one but is wrong; undefined otherwise. */
export function gatewayMetricProblem(name: string): string | null | undefined {
  if (name in GATEWAY_METRICS || SHED_RE.test(name)) return null;
  const g = GOODPUT_RE.exec(name);
  if (g)
    return (GOODPUT_FIELDS as readonly string[]).includes(g[2]!)
      ? null
      : `unknown goodput field "${g[2]}" (valid: ${GOODPUT_FIELDS.join(", ")})`;
  if (name.startsWith("goodput.")) return "per-class goodput metrics are goodput.<class>.<field>";
  const t = TENANT_RE.exec(name);
  if (t)
    return (TENANT_FIELDS as readonly string[]).includes(t[2]!)
      ? null
      : `unknown tenant field "${t[2]}" (valid: ${TENANT_FIELDS.join(", ")})`;
  if (name.startsWith("tenant.")) return "per-tenant metrics are tenant.<id>.<field>";
  return undefined;
}

/** The value of a gateway metric; undefined when `name` is not one. */
export function gatewayMetric(name: string, m: SimulationMetrics): number | null | undefined {
  const f = GATEWAY_METRICS[name];
  if (f !== undefined) return f(m);
  const s = SHED_RE.exec(name);
  if (s) return m.gateway?.shedByTier.find(([t]) => t === s[1])?.[1] ?? 0;
  const g = GOODPUT_RE.exec(name);
  if (g) {
    const c = m.cluster.per_class?.[g[1]!];
    if (c === undefined) return null;
    return (c[g[2]! as keyof GoodputClassResult] as number | undefined) ?? 0;
  }
  const t = TENANT_RE.exec(name);
  if (t) return tenantMetric(m, t[1]!, t[2]!);
  return undefined;
}

/**
 * A tenant's completions, output tokens or output tokens/s; 0 when it completed nothing, empty
 * when the run had no per-tenant block (no gateway feature on).
 */
function tenantMetric(m: SimulationMetrics, id: string, field: string): number | null {
  if (m.tenants === undefined) return null;
  const row = m.tenants?.tenants.find(([t]) => t === id);
  if (row === undefined) return 0;
  if (field === "completed") return row[1];
  if (field === "output_tokens") return row[2];
  const dur = m.cluster.vllm_estimated_duration_s;
  return dur > 0 ? row[2] / dur : 0;
}

// Service-level objectives of a plan (`--slo ttft_p99_ms=300,itl_p99_ms=40,goodput=0.95`): latency
// targets at a percentile, and a minimum goodput fraction, judged over the seeds of a point.

import { UserError } from "../util/errors.js";

export type SloDim = "ttft" | "itl" | "e2e";

export interface LatencySlo {
  kind: "latency";
  /** The key as written: `ttft_p99_ms`. */
  key: string;
  dim: SloDim;
  stat: "mean" | "p90" | "p95" | "p99";
  /** The sweep metric that holds the value (`ttft_p99`, ms). */
  metric: string;
  /** Upper limit, ms. */
  limit: number;
}

export interface GoodputSlo {
  kind: "goodput";
  key: "goodput";
  /** The run metric holding the fraction of arrivals that met every per-request target. */
  metric: "slo_attainment";
  /** Lower limit, a fraction in (0, 1]. */
  limit: number;
}

export type Slo = LatencySlo | GoodputSlo;

const LATENCY_KEY = /^(ttft|itl|e2e)_(mean|p90|p95|p99)_ms$/;

/** Parses `--slo`; every problem is one UserError naming the key. */
export function parseSlos(text: string): Slo[] {
  const out: Slo[] = [];
  for (const part of text.split(",").map((s) => s.trim())) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    if (eq < 0) throw new UserError(`--slo: "${part}" is not KEY=VALUE (e.g. ttft_p99_ms=300)`);
    const key = part.slice(0, eq).trim();
    const value = Number(part.slice(eq + 1).trim());
    if (out.some((s) => s.key === key)) throw new UserError(`--slo: ${key} is given twice`);
    if (key === "goodput") {
      if (!(value > 0 && value <= 1))
        throw new UserError(`--slo: goodput must be a fraction in (0, 1], got "${part.slice(eq + 1)}"`);
      out.push({ kind: "goodput", key, metric: "slo_attainment", limit: value });
      continue;
    }
    const m = LATENCY_KEY.exec(key);
    if (m === null) {
      throw new UserError(`--slo: unknown key "${key}" (valid: ttft|itl|e2e _ mean|p90|p95|p99 _ms, and goodput)`);
    }
    if (!(Number.isFinite(value) && value > 0))
      throw new UserError(`--slo: ${key} must be a number of ms > 0, got "${part.slice(eq + 1)}"`);
    const dim = m[1] as SloDim;
    const stat = m[2] as LatencySlo["stat"];
    out.push({ kind: "latency", key, dim, stat, metric: `${dim}_${stat}`, limit: value });
  }
  if (out.length === 0) throw new UserError("--slo: give at least one target (e.g. ttft_p99_ms=300,itl_p99_ms=40)");
  if (out.some((s) => s.kind === "goodput") && !out.some((s) => s.kind === "latency")) {
    throw new UserError("--slo: goodput needs at least one latency target (a request is good when it meets them)");
  }
  return out;
}

/**
 * Per-request goodput targets (run options `sloTtft`, `sloItl`, `sloE2e`) for the `default` class:
 * a request is good when its TTFT, mean ITL and E2E are within the tightest target of each
 * dimension. Empty without a goodput SLO.
 */
export function goodputTargets(slos: readonly Slo[]): Record<string, string> {
  if (!slos.some((s) => s.kind === "goodput")) return {};
  const out: Record<string, string> = {};
  const option: Record<SloDim, string> = { ttft: "sloTtft", itl: "sloItl", e2e: "sloE2e" };
  for (const dim of ["ttft", "itl", "e2e"] as const) {
    const limits = slos.filter((s): s is LatencySlo => s.kind === "latency" && s.dim === dim).map((s) => s.limit);
    if (limits.length > 0) out[option[dim]] = `default=${Math.min(...limits)}ms`;
  }
  return out;
}

/** How the seeds of a point are combined: every seed must pass, or the value at a quantile. */
export type SeedRule = { kind: "all" } | { kind: "quantile"; q: number };

export function parseSeedRule(text: string): SeedRule {
  if (text === "all") return { kind: "all" };
  const q = Number(text);
  if (!(text.trim() !== "" && q > 0 && q <= 1))
    throw new UserError(`--seed-quantile must be "all" or a fraction in (0, 1], got "${text}"`);
  return { kind: "quantile", q };
}

export function seedRuleText(r: SeedRule): string {
  return r.kind === "all" ? "in every seed" : `at the ${r.q} quantile over seeds`;
}

/**
 * The value an SLO is judged on: the worst seed ("all"), or the nearest-rank quantile of the seeds
 * ordered from best to worst. null when any seed lacks the value.
 */
export function judgedValue(slo: Slo, values: readonly (number | null)[], rule: SeedRule): number | null {
  if (values.length === 0 || values.some((v) => v === null || !Number.isFinite(v))) return null;
  const worseLast = [...(values as number[])].sort((a, b) => (slo.kind === "goodput" ? b - a : a - b));
  if (rule.kind === "all") return worseLast[worseLast.length - 1]!;
  const rank = Math.max(1, Math.ceil(rule.q * worseLast.length));
  return worseLast[rank - 1]!;
}

export function meets(slo: Slo, value: number): boolean {
  return slo.kind === "goodput" ? value >= slo.limit : value <= slo.limit;
}

/** Headroom as a fraction of the limit: positive = met with room, negative = missed. */
export function margin(slo: Slo, value: number): number {
  return slo.kind === "goodput" ? (value - slo.limit) / slo.limit : (slo.limit - value) / slo.limit;
}

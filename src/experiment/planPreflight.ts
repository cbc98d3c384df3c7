// Preflight warnings (README.md "Sweeps: `blis sweep`"): configurations whose KV cache is too small for the
// longest prompt they can see, found before any run starts.

import type { WorkloadSpec } from "../workload/index.js";
import type { SweepConfig } from "./planTypes.js";

/** Warn when total KV blocks < 4 × ceil(max input tokens / block size). */
export function preflightWarnings(configs: SweepConfig[]): string[] {
  const out: string[] = [];
  for (const c of configs) {
    const inp = c.input as Record<string, unknown>;
    const blocks = inp["totalKvBlocks"];
    if (typeof blocks !== "number") continue; // the defaults file decides; unknown here
    const blockSize = typeof inp["blockSizeInTokens"] === "number" ? (inp["blockSizeInTokens"] as number) : 16;
    if (!(blockSize > 0) || !(blocks > 0)) continue;
    const maxIn = maxInputTokens(inp);
    if (maxIn === null) continue;
    const need = 4 * Math.ceil(maxIn / blockSize);
    if (blocks < need) {
      out.push(
        `config "${c.label}": total-kv-blocks ${blocks} < 4 × ceil(${maxIn} max input tokens / ${blockSize}) = ${need}; preemption cascades are likely`,
      );
    }
  }
  return out;
}

function distMax(d: { type: string; params: Record<string, number> } | undefined): number | null {
  if (d === undefined) return null;
  const p = d.params;
  switch (d.type) {
    case "constant":
      return p["value"] ?? null;
    case "gaussian":
      return p["max"] ?? null;
    case "empirical": {
      const keys = Object.keys(p)
        .map((k) => parseInt(k, 10))
        .filter((k) => Number.isFinite(k));
      return keys.length > 0 ? Math.max(...keys) : null;
    }
    default:
      return null;
  }
}

function maxInputTokens(inp: Record<string, unknown>): number | null {
  const spec = inp["workloadSpecObject"] as WorkloadSpec | undefined;
  if (spec === undefined) {
    if (inp["workloadSpec"] !== undefined || (inp["workload"] !== undefined && inp["workload"] !== "distribution"))
      return null;
    const max = typeof inp["promptTokensMax"] === "number" ? (inp["promptTokensMax"] as number) : 7000;
    const prefix = typeof inp["prefixTokens"] === "number" ? (inp["prefixTokens"] as number) : 0;
    return max + prefix;
  }
  let best: number | null = null;
  for (const cl of spec.clients) {
    let inMax = distMax(cl.input_distribution);
    if (inMax === null) continue;
    const mt = cl.reasoning?.multi_turn;
    if (mt && mt.context_growth === "accumulate" && mt.max_rounds > 1) {
      const outMax = distMax(cl.output_distribution);
      if (outMax === null) continue;
      inMax = mt.max_rounds * inMax + (mt.max_rounds - 1) * outMax;
    }
    inMax += cl.prefix_group !== "" ? cl.prefix_length || 50 : 0;
    best = best === null ? inMax : Math.max(best, inMax);
  }
  return best;
}

// The V2 saturation analyzer in token units (docs/autoscaling.md "The autoscaler"):
// supply = KV capacity × κ per replica, demand = KV tokens in use + queue depth × ā; scale up
// when demand / U exceeds supply plus pending supply, report spare capacity when the model would
// still be below the scale-down boundary D without its largest replica.

import { z } from "zod";
import { anyNumber, type PolicyDescriptor } from "../util/policyRegistry.js";
import { UserError } from "../util/errors.js";
import type { Analysis, Analyzer, ModelSignals, VariantSummary } from "./types.js";

export const saturationParams = z.object({
  kv_cache_threshold: anyNumber.default(0),
  scale_up_threshold: anyNumber.default(0),
  scale_down_boundary: anyNumber.default(0),
  avg_input_tokens: anyNumber.default(0),
});
type SaturationParams = z.infer<typeof saturationParams>;

/** 0 (or absent) means the default (BLIS's convention). */
const or = (v: number, d: number): number => (v === 0 ? d : v);

function check(key: string, v: number, ok: boolean, rule: string): void {
  if (v !== 0 && !ok)
    throw new UserError(`Invalid policy config: autoscaler.analyzer.${key} must be ${rule}, got ${v}`);
}

/** Ties between variants of equal cost: GPU name, then TP. */
export function tieOrder(a: VariantSummary, b: VariantSummary): number {
  return (a.gpu < b.gpu ? -1 : a.gpu > b.gpu ? 1 : 0) || a.tp - b.tp;
}

/** Cheapest first. */
export function variantOrder(a: VariantSummary, b: VariantSummary): number {
  return a.cost - b.cost || tieOrder(a, b);
}

export class SaturationAnalyzer implements Analyzer {
  readonly kappa: number;
  readonly up: number;
  readonly down: number;
  readonly avgInput: number;
  constructor(p: SaturationParams) {
    this.kappa = or(p.kv_cache_threshold, 0.8);
    this.up = or(p.scale_up_threshold, 0.8);
    this.down = or(p.scale_down_boundary, 0.4);
    this.avgInput = or(p.avg_input_tokens, 512);
  }

  analyze(s: ModelSignals): Analysis | null {
    if (s.replicas.length === 0) return null;
    const byVariant = new Map<string, VariantSummary>();
    let contributing = 0;
    for (const r of s.replicas) {
      if (r.kvCapacityTokens <= 0) continue;
      contributing++;
      const key = `${r.variant.gpu}|${r.variant.tp}`;
      let v = byVariant.get(key);
      if (v === undefined) {
        v = { gpu: r.variant.gpu, tp: r.variant.tp, cost: r.cost, supply: 0, demand: 0, replicas: 0 };
        byVariant.set(key, v);
      }
      v.supply += r.kvCapacityTokens * this.kappa;
      v.demand += r.kvTokensInUse + r.queueDepth * this.avgInput;
      v.replicas++;
    }
    const variants = [...byVariant.values()].sort(variantOrder);
    let supply = 0;
    let demand = 0;
    for (const v of variants) {
      supply += v.supply;
      demand += v.demand;
    }
    const out: Analysis = {
      model: s.model,
      requiredCapacity: 0,
      spareCapacity: 0,
      variants,
      totalSupply: supply,
      totalDemand: demand,
    };
    const required = demand / this.up - (supply + s.pendingCapacityTokens * this.kappa);
    if (required > 0) {
      out.requiredCapacity = required;
      return out;
    }
    if (contributing < 2) return out;
    const spare = supply - demand / this.down;
    if (spare <= 0) return out;
    let largest = 0;
    for (const v of variants) largest = Math.max(largest, v.supply / v.replicas);
    if (supply - largest > demand / this.down) out.spareCapacity = spare;
    return out;
  }
}

export const saturationAnalyzer: PolicyDescriptor<Record<string, never>, Analyzer, SaturationParams> = {
  name: "saturation",
  description: "KV-token supply against demand (BLIS's V2 saturation analyzer)",
  params: saturationParams,
  flags: [],
  validate(p) {
    check(
      "kv_cache_threshold",
      p.kv_cache_threshold,
      p.kv_cache_threshold > 0 && p.kv_cache_threshold <= 1,
      "in (0, 1]",
    );
    check(
      "scale_up_threshold",
      p.scale_up_threshold,
      p.scale_up_threshold > 0 && p.scale_up_threshold < Infinity,
      "finite and > 0",
    );
    check(
      "scale_down_boundary",
      p.scale_down_boundary,
      p.scale_down_boundary > 0 && p.scale_down_boundary < Infinity,
      "finite and > 0",
    );
    check(
      "avg_input_tokens",
      p.avg_input_tokens,
      p.avg_input_tokens > 0 && p.avg_input_tokens < Infinity,
      "finite and > 0",
    );
    if (!(or(p.scale_down_boundary, 0.4) < or(p.scale_up_threshold, 0.8))) {
      throw new UserError(
        "Invalid policy config: autoscaler.analyzer.scale_down_boundary (D) must be < effective scale_up_threshold (U)",
      );
    }
  },
  create: (p) => new SaturationAnalyzer(p),
};

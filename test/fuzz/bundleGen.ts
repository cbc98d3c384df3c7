// Policy bundles for --policy-config (src/config/policyBundle.ts, examples/policy-config.yaml,
// examples/weighted-routing.yaml): every section, with the registered policy names.

import fc from "fast-check";
import { z } from "zod";
import { PolicyBundleSchema } from "../../src/config/policyBundle.js";
import type { Json } from "./yamlGen.js";

export const ADMISSION = ["always-admit", "token-bucket", "reject-all", "slo-gated", "tier-shed", "gaie-legacy"];
export const ROUTING = ["round-robin", "least-loaded", "always-busiest", "weighted"];
export const PRIORITY = ["constant", "slo-based", "inverted-slo", "slo-tiered", "slo-class"];
export const SCHEDULERS = ["fcfs", "priority-fcfs", "sjf", "reverse-priority"];
export const SCORERS = [
  "prefix-affinity",
  "queue-depth",
  "kv-utilization",
  "load-balance",
  "kv-pressure",
  "kv-pressure-slo",
  "slo-priority",
];
export const PREEMPTION = ["tail", "slo-aware", "fcfs", "priority"];
const TIERS = ["critical", "standard", "sheddable"];

const tierMap = (values: fc.Arbitrary<number>): fc.Arbitrary<Json> =>
  fc
    .uniqueArray(fc.constantFrom(...TIERS), { minLength: 1, maxLength: 3 })
    .chain((ts) => fc.tuple(...ts.map(() => values)).map((vs) => Object.fromEntries(ts.map((t, i) => [t, vs[i]!]))));

const scorersArb: fc.Arbitrary<Json> = fc
  .uniqueArray(fc.constantFrom(...SCORERS), { minLength: 1, maxLength: 3 })
  .chain((names) =>
    fc
      .tuple(...names.map(() => fc.constantFrom(0.5, 1, 2, 3)))
      .map((ws) => names.map((name, i) => ({ name, weight: ws[i]! }))),
  );

export const bundleArb: fc.Arbitrary<Json> = fc.record(
  {
    admission: fc.record(
      {
        policy: fc.constantFrom(...ADMISSION),
        token_bucket_capacity: fc.constantFrom(1000, 10000, 100000),
        token_bucket_refill_rate: fc.constantFrom(100, 1000),
        load_threshold: fc.constantFrom(1, 50),
        tier_shed_threshold: fc.constantFrom(0, 4, -1),
        tier_shed_min_priority: fc.constantFrom(0, 3, 4),
        gaie_qd_threshold: fc.constantFrom(1, 5, 0),
        gaie_kv_threshold: fc.constantFrom(0.5, 0.8, 2),
        slo_priorities: fc.constantFrom({ batch: 1 }, { critical: 10, sheddable: -5 }, { standard: 101 }),
        slo_targets: fc.constantFrom({ critical: 1000 }, { standard: 0 }),
      },
      { requiredKeys: [] },
    ),
    routing: fc.record(
      {
        policy: fc.constantFrom(...ROUTING),
        scorers: scorersArb,
        slo_cache_weights: tierMap(fc.constantFrom(0, 0.25, 1)),
      },
      { requiredKeys: [] },
    ),
    priority: fc.record(
      {
        policy: fc.constantFrom(...PRIORITY),
        base_scores: tierMap(fc.constantFrom(1, 5, 10)),
        age_weight: fc.constantFrom(0, 0.00001, 1),
        urgency_thresholds_us: tierMap(fc.constantFrom(0, 1000, 100000)),
        bridge: fc.constantFrom("none", "hint", "floor"),
      },
      { requiredKeys: [] },
    ),
    scheduler: fc.constantFrom(...SCHEDULERS),
    slo_prefill_thresholds: tierMap(fc.constantFrom(0, 16, 256)),
    preemption: fc.constantFrom(...PREEMPTION),
    tenant_budgets: fc.constantFrom({ "tenant-a": 0.25 }, { "tenant-a": 0 }, { x: 1.5 }),
  },
  { requiredKeys: [] },
);

function zodKeys(s: z.ZodType, out: Set<string>): Set<string> {
  if (s instanceof z.ZodOptional || s instanceof z.ZodDefault) return zodKeys(s.unwrap() as z.ZodType, out);
  if (s instanceof z.ZodArray) return zodKeys(s.element as z.ZodType, out);
  if (s instanceof z.ZodObject)
    for (const [k, f] of Object.entries(s.shape as Record<string, z.ZodType>)) {
      out.add(k);
      zodKeys(f, out);
    }
  return out;
}

/** Every key a policy bundle may have: an error may name one the file lacks. */
export const BUNDLE_KEYS: string[] = [...zodKeys(PolicyBundleSchema, new Set())];

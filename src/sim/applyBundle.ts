import { bundleParamValues, loadPolicyBundle, type PolicyBundle } from "../config/policyBundle.js";
import { mapToListText } from "../config/flagLists.js";
import type { RunOptions } from "../config/runOptions.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";
import type { Logger } from "../util/log.js";

/** The options with a policy bundle's values in, and the bundle's scorers. */
export interface BundledOptions {
  /** A new frozen object: the parsed options are never written to. */
  o: Readonly<RunOptions>;
  scorers: ScorerSpec[];
}

/**
 * Stage: the policy bundle's values for options not given explicitly (step 6). Policy parameters
 * come from each descriptor's bundle key. Flags win over the bundle, the bundle over defaults.
 */
export function applyBundle(parsed: Readonly<RunOptions>, explicit: ReadonlySet<string>, log: Logger): BundledOptions {
  if (parsed.policyConfig === "") return { o: parsed, scorers: [] };
  const b = loadPolicyBundle(parsed.policyConfig);
  const values: Record<string, unknown> = {};
  for (const [k, v] of bundleValues(b)) if (v !== undefined && !explicit.has(k)) values[k] = v;
  for (const [k, v] of tierShedDefault(b, { ...parsed, ...values }, explicit)) values[k] = v;
  const o = Object.freeze({ ...parsed, ...values }) as Readonly<RunOptions>;
  log.info(
    `Policy config: admission=${o.admissionPolicy}, routing=${o.routingPolicy}, priority=${o.priorityPolicy}, scheduler=${o.scheduler}`,
  );
  return { o, scorers: b.routing?.scorers ?? [] };
}

/** The bundle's option values in the order BLIS applies them (later entries of a key win). */
function bundleValues(b: PolicyBundle): [string, unknown][] {
  const out: [string, unknown][] = [];
  const orEmpty = (v: string | undefined): string | undefined => (v ? v : undefined);
  out.push(["admissionPolicy", orEmpty(b.admission?.policy)]);
  out.push(...bundleParamValues(b));
  out.push(["routingPolicy", orEmpty(b.routing?.policy)]);
  out.push(["priorityPolicy", orEmpty(b.priority?.policy)]);
  out.push(["scheduler", orEmpty(b.scheduler)]);
  if (b.routing?.slo_cache_weights) out.push(["sloCacheWeights", mapToListText(b.routing.slo_cache_weights)]);
  const bs = b.priority?.base_scores;
  out.push(
    ["sloBaseCritical", bs?.["critical"]],
    ["sloBaseStandard", bs?.["standard"]],
    ["sloBaseSheddable", bs?.["sheddable"]],
  );
  out.push(["sloAgeWeight", b.priority?.age_weight]);
  const ut = b.priority?.urgency_thresholds_us;
  out.push(["sloThresholdCritical", ut?.["critical"]], ["sloThresholdStandard", ut?.["standard"]]);
  out.push(["sloThresholdSheddable", ut?.["sheddable"]]);
  out.push(["priorityBridge", orEmpty(b.priority?.bridge)]);
  if (b.slo_prefill_thresholds) out.push(["sloPrefillThresholds", mapToListText(b.slo_prefill_thresholds)]);
  out.push(["preemptionPolicy", orEmpty(typeof b.preemption === "string" ? b.preemption : b.preemption?.policy)]);
  return out;
}

/** BLIS: a bundle selecting tier-shed without a min priority uses 3 (the command line's default is 0). */
function tierShedDefault(b: PolicyBundle, o: Readonly<RunOptions>, explicit: ReadonlySet<string>): [string, unknown][] {
  const adm = b.admission;
  if (adm?.policy !== "tier-shed" || adm.tier_shed_min_priority !== undefined || explicit.has("tierShedMinPriority"))
    return [];
  return o.admissionPolicy === "tier-shed" ? [["tierShedMinPriority", 3]] : [];
}

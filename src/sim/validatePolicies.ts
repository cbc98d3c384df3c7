import { parseRoutingScorers, parseSloCacheWeights, parseSloPrefillThresholds } from "../config/flagLists.js";
import { policyFamilies, selectedPolicy } from "../config/policyFamilies.js";
import { DEFAULT_SCORERS, RUN_DEFAULTS, type RunOptions } from "../config/runOptions.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { scorers, type ScorerSpec } from "../cluster/scorers/scorer.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import { preemptionPolicies } from "../policy/preemption.js";
import { withLoraScorer } from "./loraScorer.js";
import { UserError } from "../util/errors.js";
import { checkTieBreak } from "../cluster/routing/tieBreak.js";
import { checkQueueDepthSignal } from "../cluster/scorers/loadScorers.js";
import type { Logger } from "../util/log.js";

export interface PolicySettings {
  tracing: boolean;
  sloCacheWeights: [number, number, number];
  sloPrefill: Map<string, number> | null;
}

/** Stage: parameters and names of the selected policies, tracing, SLO extensions (steps 7-8). */
export function validatePolicies(
  o: Readonly<RunOptions>,
  log: Logger,
  explicit: ReadonlySet<string> = new Set(),
): PolicySettings {
  validatePolicyParameters(o, explicit);
  // 8. Policy names, tracing.
  checkPolicyNames(o);
  const tracing = checkTracing(o, log);
  // Extension parameters.
  checkName("priority bridge", o.priorityBridge, ["floor", "hint", "none"]);
  checkName("preemption policy", o.preemptionPolicy, preemptionPolicies.names());
  checkExtensionNumbers(o);
  const sloCacheWeights = parseSloCacheWeights(o.sloCacheWeights);
  const sloPrefill = parseSloPrefillThresholds(o.sloPrefillThresholds);
  if (o.priorityPolicy === "slo-tiered" || o.priorityPolicy === "slo-class" || o.priorityBridge !== "none") {
    if (!(o.sloBaseCritical > o.sloBaseStandard && o.sloBaseStandard > o.sloBaseSheddable)) {
      log.warn("SLO base scores are not strictly decreasing from critical to sheddable");
    }
  }
  return { tracing, sloCacheWeights, sloPrefill };
}

/**
 * 7. Parameters of the selected policies (token bucket: docs/behavior.md "Validation order and exit status"),
 * then those of other policies whose flags were given: a bad value is a mistake even where it has no effect.
 */
function validatePolicyParameters(o: Readonly<RunOptions>, explicit: ReadonlySet<string>): void {
  for (const fam of policyFamilies()) if (fam.option !== null) fam.registry.get(selectedPolicy(fam, o))?.validate(o);
  for (const fam of policyFamilies()) {
    for (const p of fam.registry.all()) if (p.flags.some((f) => explicit.has(f.key))) p.validate(o);
  }
}

function checkPolicyNames(o: Readonly<RunOptions>): void {
  checkName("admission policy", o.admissionPolicy, admissionPolicies.names());
  checkName("routing policy", o.routingPolicy, routingPolicies.names());
  checkTieBreak(o.routingTieBreak);
  checkQueueDepthSignal(o.queueDepthSignal);
  checkName("priority policy", o.priorityPolicy, priorityPolicies.names());
  checkName("scheduler", o.scheduler, schedulers.names());
}

/** Whether decisions are traced; warns about trace flags that have no effect. */
function checkTracing(o: Readonly<RunOptions>, log: Logger): boolean {
  if (o.traceLevel !== "" && o.traceLevel !== "none" && o.traceLevel !== "decisions") {
    throw new UserError(`Unknown trace level "${o.traceLevel}". Valid: none, decisions`);
  }
  const tracing = o.traceLevel === "decisions";
  if (o.counterfactualK < 0) throw new UserError(`--counterfactual-k must be >= 0, got ${o.counterfactualK}`);
  if (o.counterfactualK > 0 && !tracing) log.warn("--counterfactual-k has no effect without --trace-level decisions");
  if (o.summarizeTrace && !tracing) log.warn("--summarize-trace has no effect without --trace-level decisions");
  if (tracing && !o.summarizeTrace) log.info("decision tracing is on; add --summarize-trace to print a summary");
  return tracing;
}

/** The admission load threshold and the SLO base scores, age weight and thresholds, in flag order. */
function checkExtensionNumbers(o: Readonly<RunOptions>): void {
  if (!Number.isFinite(o.admissionLoadThreshold) || o.admissionLoadThreshold < 0) {
    throw new UserError(`--admission-load-threshold must be a finite value >= 0, got ${o.admissionLoadThreshold}`);
  }
  for (const [k, flag] of [
    ["sloBaseCritical", "--slo-base-critical"],
    ["sloBaseStandard", "--slo-base-standard"],
    ["sloBaseSheddable", "--slo-base-sheddable"],
  ] as const) {
    if (!Number.isFinite(o[k])) throw new UserError(`${flag} must be a finite number, got ${o[k]}`);
  }
  if (!Number.isFinite(o.sloAgeWeight) || o.sloAgeWeight < 0) {
    throw new UserError(`--slo-age-weight must be a finite value >= 0, got ${o.sloAgeWeight}`);
  }
  for (const [k, flag] of [
    ["sloThresholdCritical", "--slo-threshold-critical"],
    ["sloThresholdStandard", "--slo-threshold-standard"],
    ["sloThresholdSheddable", "--slo-threshold-sheddable"],
  ] as const) {
    if (o[k] < 0) throw new UserError(`${flag} must be >= 0, got ${o[k]}`);
  }
}

/** Stage: the weighted-routing scorers and the selected policies' info lines (step 10). */
export function selectScorers(
  o: Readonly<RunOptions>,
  bundleScorers: ScorerSpec[],
  log: Logger,
): readonly ScorerSpec[] {
  let scorerSpecs = DEFAULT_SCORERS;
  if (o.routingPolicy === "weighted") {
    const fromFlag = parseRoutingScorers(o.routingScorers);
    if (fromFlag !== null) scorerSpecs = fromFlag;
    else if (bundleScorers.length > 0) scorerSpecs = bundleScorers;
    log.info(`Weighted routing scorers: ${scorerSpecs.map((s) => `${s.name}:${s.weight.toFixed(1)}`).join(", ")}`);
  } else if (o.routingScorers !== "") {
    log.warn(
      `--routing-scorers has no effect when routing policy is "${o.routingPolicy}" (only applies to 'weighted')`,
    );
  }
  if (o.routingPolicy === "weighted") for (const s of scorerSpecs) scorers.get(s.name)?.validate(o);
  const routing = o.routingPolicy || RUN_DEFAULTS.routingPolicy;
  if (o.routingTieBreak !== "first" && !routingPolicies.get(routing)?.flags.some((f) => f.key === "routingTieBreak")) {
    log.warn(
      `--routing-tie-break has no effect when routing policy is "${routing}" (only applies to 'weighted' and 'least-loaded')`,
    );
  }
  for (const fam of policyFamilies()) {
    const line = fam.option !== null ? fam.registry.get(selectedPolicy(fam, o))?.summary(o) : null;
    if (line) log.info(line);
  }
  return withLoraScorer(o, scorerSpecs, log);
}

function checkName(kind: string, name: string, valid: string[]): void {
  if (name === "") return;
  if (!valid.includes(name)) {
    throw new UserError(`Unknown ${kind} "${name}". Valid: ${valid.join(", ")}`);
  }
}

/** Tier-shed without a min priority sheds little: said once, where the gateway's checks ran. */
export function warnTierShedDefault(o: Readonly<RunOptions>, log: Logger): void {
  if (o.admissionPolicy === "tier-shed" && o.tierShedMinPriority === undefined)
    log.warn("tier-shed: no min priority given; 0 sheds only negative-priority classes (batch, sheddable, background)");
}

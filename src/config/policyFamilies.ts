// The policy families a run selects from, with the option that names the choice. Flags, bundle
// keys and "Valid:" lists of every family are derived from this table and the registries; the
// latency backends add their parameter flags and schemas.
import "../policy/builtins.js";
import "../gateway/builtins.js";
import type { ParamFlag, ParamSchema, PolicyFamilyView } from "../util/policyRegistry.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { scorers } from "../cluster/scorers/scorer.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import { preemptionPolicies } from "../policy/preemption.js";
import { latencyBackends, latencyParamFlags } from "../latency/backends/backend.js";
import { pdDeciders } from "../pd/deciders.js";
import "../features/builtins.js";
import { features } from "../features/registry.js";

export interface PolicyFamily {
  registry: PolicyFamilyView;
  /**
   * The option naming the selected policy (a run option, or a feature's: PD's decider); null for
   * scorers (chosen by --routing-scorers).
   */
  option: string | null;
}

/** The policy a family's option selects in `options` ("" when it is not set). */
export function selectedPolicy(family: PolicyFamily, options: Readonly<Record<string, unknown>>): string {
  const name = family.option !== null ? options[family.option] : undefined;
  return typeof name === "string" ? name : "";
}

export function policyFamilies(): PolicyFamily[] {
  return [
    { registry: admissionPolicies, option: "admissionPolicy" },
    { registry: routingPolicies, option: "routingPolicy" },
    { registry: scorers, option: null },
    { registry: priorityPolicies, option: "priorityPolicy" },
    { registry: schedulers, option: "scheduler" },
    { registry: preemptionPolicies, option: "preemptionPolicy" },
    { registry: pdDeciders, option: "pdDecider" },
  ];
}

/** Every registered policy's parameter flags, each key once, with the schema holding its default. */
export function policyParamFlags(): { flag: ParamFlag; schema: ParamSchema<unknown> }[] {
  const seen = new Set<string>();
  const out: { flag: ParamFlag; schema: ParamSchema<unknown> }[] = [];
  for (const { registry } of policyFamilies()) {
    for (const p of registry.all()) {
      for (const flag of p.flags) {
        if (seen.has(flag.key)) continue;
        seen.add(flag.key);
        out.push({ flag, schema: p.params });
      }
    }
  }
  return out;
}

/** Every registered feature's option flags (src/features/). */
export function featureParamFlags(): { flag: ParamFlag; schema: ParamSchema<unknown> }[] {
  return features.all().flatMap((f) => f.flags.map((flag) => ({ flag, schema: f.params })));
}

/** The options only a policy bundle sets (features' bundle keys), with the schema that checks each. */
export function bundleOnlyKeys(): { key: string; bundle: string; schema: ParamSchema<unknown> }[] {
  return features.all().flatMap((f) => f.bundleKeys.map((k) => ({ key: k.key, bundle: k.bundle, schema: f.params })));
}

/** The flags whose values a policy bundle may set too: policies' and features' options. */
export function bundleParamFlags(): { flag: ParamFlag; schema: ParamSchema<unknown> }[] {
  return [...policyParamFlags(), ...featureParamFlags()];
}

/**
 * The flags of `blis run` derived from registries: policies', features' and latency backends' options, each key once.
 */
export function runParamFlags(): { flag: ParamFlag; schema: ParamSchema<unknown> }[] {
  const seen = new Set<string>();
  const out: { flag: ParamFlag; schema: ParamSchema<unknown> }[] = [];
  for (const p of [...policyParamFlags(), ...featureParamFlags(), ...latencyParamFlags()]) {
    if (seen.has(p.flag.key)) continue;
    seen.add(p.flag.key);
    out.push(p);
  }
  return out;
}

/** The option schemas of every registered policy, feature and latency backend (run options hold them all). */
export function paramSchemas(): ParamSchema<unknown>[] {
  const policies = policyFamilies().flatMap(({ registry }) => registry.all().map((p) => p.params));
  const backends = latencyBackends.names().flatMap((n) => latencyBackends.get(n)!.params ?? []);
  return [...policies, ...features.all().map((f) => f.params), ...backends];
}

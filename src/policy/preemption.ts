import { PolicyRegistry, type PolicyDescriptor } from "../util/policyRegistry.js";

/**
 * How batch formation picks a preemption victim (docs/behavior.md "Priorities and schedulers");
 * the instance implements each rule, the registry names them.
 */
export type PreemptionRule = "tail" | "priority" | "slo-aware";

export type PreemptionDescriptor<P = Record<string, never>> = PolicyDescriptor<
  Record<string, never>,
  PreemptionRule,
  P
>;

export const preemptionPolicies = new PolicyRegistry<Record<string, never>, PreemptionRule>("preemption policy");

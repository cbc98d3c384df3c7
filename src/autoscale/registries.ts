// The autoscaler's policy families (docs/autoscaling.md): each stage of the pipeline is a
// descriptor looked up by name, with a zod schema of its parameters (keyed by their bundle keys)
// and a factory, like the routing and scheduling policies.

import { PolicyRegistry } from "../util/policyRegistry.js";
import type { CollectorContext } from "./collector.js";
import type {
  Analyzer,
  Collector,
  Engine,
  Stabilizer,
  Actuator,
  DrainPolicy,
  EngineContext,
  ActuatorContext,
} from "./types.js";

export const collectors = new PolicyRegistry<CollectorContext, Collector>("autoscaler collector");
export const analyzers = new PolicyRegistry<Record<string, never>, Analyzer>("autoscaler analyzer");
export const engines = new PolicyRegistry<EngineContext, Engine>("autoscaler engine");
export const stabilizers = new PolicyRegistry<{ upWindowUs: number; downWindowUs: number }, Stabilizer>(
  "autoscaler stabilization",
);
export const actuators = new PolicyRegistry<ActuatorContext, Actuator>("autoscaler actuator");
export const drainPolicies = new PolicyRegistry<Record<string, never>, DrainPolicy>("drain policy");

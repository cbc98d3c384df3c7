// Built-in scenarios (docs/behavior.md "Traces, convert and compose"), exposed through `convert
// scenario` (extension).

import { UserError } from "../util/errors.js";
import { dist, makeClient, makeSpec, type ClientSpec, type WorkloadSpec } from "./spec/types.js";

export const SCENARIO_NAMES = ["bursty", "unfair", "prefix-heavy", "mixed-slo"] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

const exp = (mean: number) => dist("exponential", { mean });
const gauss = (mean: number, std_dev: number, min: number, max: number) =>
  dist("gaussian", { mean, std_dev, min, max });
const poisson = { process: "poisson" } as const;

function clientsFor(name: ScenarioName): ClientSpec[] {
  switch (name) {
    case "bursty":
      return burstyClients();
    case "unfair":
      return unfairClients();
    case "prefix-heavy":
      return prefixHeavyClients();
    case "mixed-slo":
      return mixedSloClients();
  }
}

/** One client with very bursty (gamma, cv 3.5) arrivals. */
function burstyClients(): ClientSpec[] {
  return [
    makeClient({
      id: "bursty-client",
      tenant_id: "tenant-A",
      slo_class: "batch",
      rate_fraction: 1.0,
      arrival: { process: "gamma", cv: 3.5 },
      input_distribution: exp(512),
      output_distribution: exp(256),
    }),
  ];
}

/** A bulk batch tenant with 90% of the traffic beside a small critical one. */
function unfairClients(): ClientSpec[] {
  return [
    makeClient({
      id: "low-priority-bulk",
      tenant_id: "tenant-bulk",
      slo_class: "batch",
      rate_fraction: 0.9,
      arrival: { ...poisson },
      input_distribution: exp(1024),
      output_distribution: exp(512),
    }),
    makeClient({
      id: "high-priority-realtime",
      tenant_id: "tenant-realtime",
      slo_class: "critical",
      rate_fraction: 0.1,
      arrival: { ...poisson },
      input_distribution: gauss(128, 50, 10, 2048),
      output_distribution: exp(64),
      streaming: true,
    }),
  ];
}

/** 80% of the requests share a system-prompt prefix. */
function prefixHeavyClients(): ClientSpec[] {
  return [
    makeClient({
      id: "shared-prefix",
      tenant_id: "tenant-A",
      slo_class: "batch",
      rate_fraction: 0.8,
      arrival: { ...poisson },
      input_distribution: exp(256),
      output_distribution: exp(128),
      prefix_group: "system-prompt",
    }),
    makeClient({
      id: "unique-prefix",
      tenant_id: "tenant-B",
      slo_class: "standard",
      rate_fraction: 0.2,
      arrival: { ...poisson },
      input_distribution: exp(512),
      output_distribution: exp(256),
    }),
  ];
}

/** Critical, standard and batch traffic in about equal shares. */
function mixedSloClients(): ClientSpec[] {
  return [
    makeClient({
      id: "realtime",
      tenant_id: "tenant-rt",
      slo_class: "critical",
      rate_fraction: 0.33,
      arrival: { ...poisson },
      input_distribution: gauss(64, 20, 10, 256),
      output_distribution: exp(32),
      streaming: true,
    }),
    makeClient({
      id: "interactive",
      tenant_id: "tenant-int",
      slo_class: "standard",
      rate_fraction: 0.34,
      arrival: { ...poisson },
      input_distribution: gauss(256, 100, 32, 2048),
      output_distribution: exp(128),
    }),
    makeClient({
      id: "batch",
      tenant_id: "tenant-batch",
      slo_class: "batch",
      rate_fraction: 0.33,
      arrival: { ...poisson },
      input_distribution: exp(1024),
      output_distribution: exp(512),
    }),
  ];
}

export function isScenarioName(name: string): name is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(name);
}

/** The named scenario at `rate` req/s with workload seed `seed` (no cap, no horizon). */
export function scenarioSpec(name: string, seed: bigint, rate: number): WorkloadSpec {
  if (!isScenarioName(name)) throw new UserError(`Unknown scenario "${name}". Valid: ${SCENARIO_NAMES.join(", ")}`);
  return makeSpec({ version: "2", seed, category: "language", aggregate_rate: rate, clients: clientsFor(name) });
}

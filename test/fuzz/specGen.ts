// Workload specs (docs/behavior.md "The workload spec", src/workload/spec/types.ts) shaped like
// the examples, small enough that a valid one simulates in milliseconds: few requests, short
// prompts and outputs, low rates or a short horizon.

import fc from "fast-check";
import type { AnySchema } from "../../src/workload/spec/schema.js";
import { WorkloadSpecSchema } from "../../src/workload/spec/types.js";
import type { Json } from "./yamlGen.js";

const small = (min: number, max: number): fc.Arbitrary<number> => fc.integer({ min, max });

export const distArb: fc.Arbitrary<Json> = fc.oneof(
  fc.record({
    type: fc.constant("gaussian"),
    params: fc.record({ mean: small(5, 60), std_dev: small(0, 20), min: small(1, 5), max: small(60, 200) }),
  }),
  fc.record({ type: fc.constant("exponential"), params: fc.record({ mean: small(1, 60) }) }),
  fc.record({
    type: fc.constant("pareto_lognormal"),
    params: fc.record({
      alpha: fc.constantFrom(2, 3),
      xm: small(5, 30),
      mu: fc.constantFrom(2, 3),
      sigma: fc.constantFrom(0.3, 0.5),
      mix_weight: fc.constantFrom(0, 0.3, 1),
    }),
  }),
  fc.record({ type: fc.constant("constant"), params: fc.record({ value: small(1, 60) }) }),
  fc.record({
    type: fc.constant("empirical"),
    params: fc.constantFrom<Json>({ "10": 0.5, "20": 0.5 }, { "1": 1 }, { "0": 1 }, { "5": 0.2, "50": 0.8 }),
  }),
);

const arrivalArb: fc.Arbitrary<Json> = fc.oneof(
  fc.record({ process: fc.constantFrom("poisson", "constant") }),
  fc.record({ process: fc.constantFrom("gamma", "weibull"), cv: fc.constantFrom(0.5, 1, 2, 3.5) }),
);

const multiTurnArb: fc.Arbitrary<Json> = fc.record({
  max_rounds: small(1, 3),
  think_time_us: fc.constantFrom(0, 1000, 500000),
  context_growth: fc.constantFrom("accumulate", ""),
});

const clientArb: fc.Arbitrary<Json> = fc.record(
  {
    id: fc.constantFrom("a", "b", "chat", ""),
    tenant_id: fc.constantFrom("t1", "t2"),
    slo_class: fc.constantFrom("critical", "standard", "sheddable", "batch", "background", ""),
    model: fc.constantFrom("", "m1"),
    rate_fraction: fc.constantFrom(0.2, 0.5, 1),
    arrival: arrivalArb,
    input_distribution: distArb,
    output_distribution: distArb,
    prefix_group: fc.constantFrom("g", "h"),
    prefix_length: fc.constantFrom(0, 8, 32),
    streaming: fc.boolean(),
    slo_target_us: fc.constantFrom(0, 1000, 5000000, -1),
    network: fc.constant<Json>({ rtt_ms: 2, bandwidth_mbps: 1000 }),
    lifecycle: fc.record({
      windows: fc.array(fc.record({ start_us: fc.constantFrom(0, 1000), end_us: fc.constantFrom(500000, 2000000) }), {
        minLength: 1,
        maxLength: 2,
      }),
    }),
    multimodal: fc.record({
      text_distribution: distArb,
      image_distribution: distArb,
      image_count_distribution: fc.constant<Json>({ type: "constant", params: { value: 1 } }),
      audio_distribution: distArb,
      audio_count_distribution: fc.constant<Json>({ type: "constant", params: { value: 0 } }),
      video_distribution: distArb,
      video_count_distribution: fc.constant<Json>({ type: "constant", params: { value: 0 } }),
    }),
    reasoning: fc.record(
      { reason_ratio_distribution: distArb, multi_turn: multiTurnArb },
      { requiredKeys: ["reason_ratio_distribution"] },
    ),
  },
  { requiredKeys: ["rate_fraction", "arrival", "input_distribution", "output_distribution"] },
);

const cohortArb: fc.Arbitrary<Json> = fc.record(
  {
    id: fc.constantFrom("c", "users"),
    population: small(1, 3),
    slo_class: fc.constantFrom("critical", "standard", ""),
    arrival: arrivalArb,
    input_distribution: distArb,
    output_distribution: distArb,
    rate_fraction: fc.constantFrom(0.5, 1),
    diurnal: fc.record({ peak_hour: small(0, 23), peak_to_trough_ratio: fc.constantFrom(1, 2) }),
    spike: fc.record({ start_time_us: fc.constantFrom(0, 1000), duration_us: fc.constantFrom(1000, 100000) }),
    drain: fc.record({ start_time_us: fc.constantFrom(0, 1000), ramp_duration_us: fc.constantFrom(1000, 100000) }),
  },
  { requiredKeys: ["population", "rate_fraction", "arrival", "input_distribution", "output_distribution"] },
);

const inferencePerfArb: fc.Arbitrary<Json> = fc.record(
  {
    stages: fc.array(fc.record({ rate: fc.constantFrom(1, 5), duration: fc.constantFrom(1, 2) }), {
      minLength: 1,
      maxLength: 2,
    }),
    shared_prefix: fc.record({
      num_unique_system_prompts: small(1, 2),
      num_users_per_system_prompt: small(1, 2),
      system_prompt_len: small(1, 20),
      question_len: small(1, 20),
      output_len: small(1, 10),
      enable_multi_turn_chat: fc.boolean(),
    }),
  },
  { requiredKeys: ["stages"] },
);

/** A workload spec; a request cap or a short horizon keeps the work small. */
export const specArb: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        version: fc.constantFrom("2", "1", "1.0", ""),
        seed: fc.constantFrom(0, 7, 42),
        category: fc.constantFrom("language", "multimodal", "reasoning", ""),
        aggregate_rate: fc.constantFrom(1, 10, 100, 1000),
        num_requests: small(1, 5),
        horizon: fc.constantFrom(100000, 2000000),
        clients: fc.array(clientArb, { minLength: 1, maxLength: 3 }),
        cohorts: fc.array(cohortArb, { maxLength: 1 }),
      },
      { requiredKeys: ["version", "aggregate_rate", "num_requests", "clients"] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        version: fc.constantFrom("1", "2"),
        seed: fc.constant(42),
        num_requests: small(1, 5),
        inference_perf: inferencePerfArb,
      },
      { requiredKeys: ["inference_perf"] },
    ),
  },
);

function schemaKeys(s: AnySchema, out: Set<string>): Set<string> {
  if (s.kind === "object")
    for (const [k, f] of Object.entries(s.fields)) {
      out.add(k);
      schemaKeys(f, out);
    }
  else if (s.kind === "list") schemaKeys(s.item, out);
  else if (s.kind === "optional") schemaKeys(s.inner, out);
  else if (s.kind === "record") schemaKeys(s.value, out);
  return out;
}

/** Every key a workload spec may have: an error may name one the file lacks. */
export const SPEC_KEYS: string[] = [...schemaKeys(WorkloadSpecSchema, new Set())];

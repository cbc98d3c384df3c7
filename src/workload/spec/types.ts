// Workload-spec v2 schemas (docs/behavior.md "The workload spec") and the types inferred from them.
// Keys are the YAML keys (snake_case) so spec paths like `clients[0].arrival.cv` address fields.

import { bool, float, floatMap, int, int64, list, obj, opt, record, str, type Infer } from "./schema.js";

export const DistSchema = obj("distribution", { type: str, params: floatMap, file: str });
export const ArrivalSchema = obj("arrival", { process: str, cv: opt(float) });
export const NetworkSchema = obj("network", { rtt_ms: float, bandwidth_mbps: float });
export const WindowSchema = obj("window", { start_us: int, end_us: int });
export const LifecycleSchema = obj("lifecycle", { windows: list(WindowSchema) });
export const MultimodalSchema = obj("multimodal", {
  text_distribution: DistSchema,
  image_distribution: DistSchema,
  image_count_distribution: DistSchema,
  audio_distribution: DistSchema,
  audio_count_distribution: DistSchema,
  video_distribution: DistSchema,
  video_count_distribution: DistSchema,
});
/** One point of a client's rate schedule: from `at_s` seconds on, `rate` requests per second. */
export const RatePointSchema = obj("rate point", { at_s: float, rate: float });
export const MultiTurnSchema = obj("multi_turn", { max_rounds: int, think_time_us: int, context_growth: str });
export const ReasoningSchema = obj("reasoning", {
  reason_ratio_distribution: DistSchema,
  multi_turn: opt(MultiTurnSchema),
});

export const ClientSchema = obj("client", {
  id: str,
  tenant_id: str,
  slo_class: str,
  model: str,
  rate_fraction: float,
  arrival: ArrivalSchema,
  input_distribution: DistSchema,
  output_distribution: DistSchema,
  prefix_group: str,
  prefix_length: int,
  streaming: bool,
  network: opt(NetworkSchema),
  lifecycle: opt(LifecycleSchema),
  multimodal: opt(MultimodalSchema),
  reasoning: opt(ReasoningSchema),
  /** Virtual users of a closed loop (docs/behavior.md "Closed-loop load"); absent or 0 = open loop. */
  concurrency: opt(int),
  /** Think time of the virtual users between a response and their next request, µs. */
  think_time_us: opt(int),
  /** Multi-turn sessions whose rounds follow completions; absent = open loop (seed behavior). */
  closed_loop: opt(bool),
  /** Client deadline of each request, µs after its arrival (docs/behavior.md "Client timeouts"); absent or 0 = none. */
  timeout: opt(int),
  /** TTFT target of each request for `slo-deadline` gateway dispatch, µs; absent or 0 = the class's. */
  slo_target_us: opt(int),
  /**
   * Time-varying open-loop rate in requests per second, replacing rate_fraction (docs/behavior.md "Rate schedules").
   */
  rate_schedule: opt(list(RatePointSchema)),
  /** How the rate moves between schedule points: step (default) or linear. */
  rate_interpolation: opt(str),
  /** LoRA adapter of the client's requests (docs/lora.md); absent or "" = the base model. */
  adapter: opt(str),
});

export const DiurnalSchema = obj("diurnal", { peak_hour: int, peak_to_trough_ratio: float });
export const SpikeSchema = obj("spike", { start_time_us: int, duration_us: int });
export const DrainSchema = obj("drain", { start_time_us: int, ramp_duration_us: int });

export const CohortSchema = obj("cohort", {
  id: str,
  population: int,
  tenant_id: str,
  slo_class: str,
  model: str,
  arrival: ArrivalSchema,
  input_distribution: DistSchema,
  output_distribution: DistSchema,
  prefix_group: str,
  streaming: bool,
  rate_fraction: float,
  diurnal: opt(DiurnalSchema),
  spike: opt(SpikeSchema),
  drain: opt(DrainSchema),
  /** Client deadline of each member's requests, µs after arrival; absent or 0 = none. */
  timeout: opt(int),
  /** TTFT target of each member's requests for `slo-deadline` gateway dispatch, µs. */
  slo_target_us: opt(int),
  /** LoRA adapter of the members' requests (docs/lora.md). */
  adapter: opt(str),
});

export const ServeGenDataSchema = obj("servegen_data", { path: str, span_start: int, span_end: int });
export const StageSchema = obj("stage", { rate: float, duration: int });
export const SharedPrefixSchema = obj("shared_prefix", {
  num_unique_system_prompts: int,
  num_users_per_system_prompt: int,
  system_prompt_len: int,
  question_len: int,
  output_len: int,
  enable_multi_turn_chat: bool,
});
export const InferencePerfSchema = obj("inference_perf", {
  stages: list(StageSchema),
  shared_prefix: opt(SharedPrefixSchema),
});

/**
 * A Mooncake-style JSONL trace as the workload (docs/traces.md): `path` (relative to the working
 * directory), tokens per hash id (0 = 512), factor on the gaps between timestamps (0 = 1), and
 * requests kept in flight ignoring timestamps (0 = open loop, the trace's arrivals).
 */
export const MooncakeTraceSchema = obj("mooncake_trace", {
  path: str,
  block_size: int,
  time_scale: float,
  concurrency: int,
});

/** Goodput targets of one SLO class, ms (docs/gateway.md "Goodput"). */
export const GoodputTargetSchema = obj("goodput_slo_targets", { ttft_ms: float, itl_ms: float, e2e_ms: float });

export const WorkloadSpecSchema = obj("workload spec", {
  version: str,
  seed: int64,
  category: str,
  clients: list(ClientSchema),
  cohorts: list(CohortSchema),
  aggregate_rate: float,
  horizon: int,
  num_requests: int,
  servegen_data: opt(ServeGenDataSchema),
  inference_perf: opt(InferencePerfSchema),
  goodput_slo_targets: opt(record(GoodputTargetSchema)),
  mooncake_trace: opt(MooncakeTraceSchema),
});

export type DistSpec = Infer<typeof DistSchema>;
export type ArrivalSpec = Infer<typeof ArrivalSchema>;
export type NetworkSpec = Infer<typeof NetworkSchema>;
export type WindowSpec = Infer<typeof WindowSchema>;
export type LifecycleSpec = Infer<typeof LifecycleSchema>;
export type MultimodalSpec = Infer<typeof MultimodalSchema>;
export type RatePointSpec = Infer<typeof RatePointSchema>;
export type MultiTurnSpec = Infer<typeof MultiTurnSchema>;
export type ReasoningSpec = Infer<typeof ReasoningSchema>;
export type ClientSpec = Infer<typeof ClientSchema>;
export type DiurnalSpec = Infer<typeof DiurnalSchema>;
export type SpikeSpec = Infer<typeof SpikeSchema>;
export type DrainSpec = Infer<typeof DrainSchema>;
export type CohortSpec = Infer<typeof CohortSchema>;
export type ServeGenDataSpec = Infer<typeof ServeGenDataSchema>;
export type StageSpec = Infer<typeof StageSchema>;
export type SharedPrefixSpec = Infer<typeof SharedPrefixSchema>;
export type InferencePerfSpec = Infer<typeof InferencePerfSchema>;
export type MooncakeTraceSpec = Infer<typeof MooncakeTraceSchema>;
export type WorkloadSpec = Infer<typeof WorkloadSpecSchema>;

export const VALID_CATEGORIES = ["", "language", "multimodal", "reasoning"] as const;
export const VALID_SLO_CLASSES = ["", "critical", "standard", "sheddable", "batch", "background"] as const;
export const VALID_PROCESSES = ["poisson", "gamma", "weibull", "constant"] as const;
export const VALID_RATE_INTERPOLATIONS = ["", "step", "linear"] as const;
export const VALID_DIST_TYPES = ["gaussian", "exponential", "pareto_lognormal", "empirical", "constant"] as const;

/** A distribution with every field at its zero value. */
export function emptyDist(): DistSpec {
  return { type: "", params: {}, file: "" };
}
export function dist(type: string, params: Record<string, number>): DistSpec {
  return { type, params, file: "" };
}

/** A client with zero values everywhere, overridden by `fields`. */
export function makeClient(fields: Partial<ClientSpec>): ClientSpec {
  return {
    id: "",
    tenant_id: "",
    slo_class: "",
    model: "",
    rate_fraction: 0,
    arrival: { process: "" },
    input_distribution: emptyDist(),
    output_distribution: emptyDist(),
    prefix_group: "",
    prefix_length: 0,
    streaming: false,
    ...fields,
  };
}

/** A spec with zero values everywhere (version "2"), overridden by `fields`. */
export function makeSpec(fields: Partial<WorkloadSpec>): WorkloadSpec {
  return {
    version: "2",
    seed: 0n,
    category: "",
    clients: [],
    cohorts: [],
    aggregate_rate: 0,
    horizon: 0,
    num_requests: 0,
    ...fields,
  };
}

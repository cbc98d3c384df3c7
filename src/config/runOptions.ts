import { z } from "zod";
import type { BuiltinFeatureOptions } from "../features/builtins.js";
import { DEFAULT_SLO_CACHE_WEIGHTS, DEFAULT_SLO_PARAMS } from "../policy/sloTiers.js";
import { BUNDLED_DEFAULTS } from "../util/paths.js";
import { anyNumber } from "../util/policyRegistry.js";
import { paramSchemas } from "./policyFamilies.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";
import type { ClusterPolicyParams } from "../cluster/builtins.js";
import type { GatewayPolicyParams } from "../gateway/builtins.js";
import type { DeciderParams } from "../pd/deciders.js";
import { loraOptionsShape } from "../lora/options.js";
import { sharedWorkloadShape } from "../workload/sources/sharedParams.js";
import { workloadSpecShape } from "../workload/sources/workloadSpecSource.js";
import { csvTraceShape } from "../workload/sources/csvTraceSource.js";
import { replayTraceShape } from "../workload/sources/replayTraceSource.js";
import { closedLoopShape } from "../workload/sources/closedLoopSource.js";
import { distributionShape } from "../workload/sources/distributionSource.js";
import { workloadSources } from "../workload/sources/registry.js";

export { anyNumber };

/** The weighted-routing scorers when neither --routing-scorers nor a policy bundle lists any. */
export const DEFAULT_SCORERS: readonly ScorerSpec[] = [
  { name: "prefix-affinity", weight: 3 },
  { name: "queue-depth", weight: 2 },
  { name: "kv-utilization", weight: 2 },
];

/** How logs and `--help` print the unbounded horizon (Go's max int64). */
export const HORIZON_MAX_TEXT = "9223372036854775807";

/**
 * Everything `blis run` accepts, keyed by the camelCase form of the flag. Library callers pass a
 * partial object; a key that is present counts as "given explicitly" (flag precedence rules).
 * Each `.default(...)` is the only default of its option: `--help` prints it (config/runFlags.ts).
 */
export const RunOptionsSchema = z.strictObject({
  model: z.string().default(""),
  hardware: z.string().default(""),
  tp: z.number().int().default(0),
  vllmVersion: z.string().default(""),
  roofline: z.boolean().default(false),
  /** trained-physics (default), roofline, blackbox; "" = chosen from the other flags. */
  latencyModel: z.string().default(""),
  latencyCoeffs: z.string().default(""),
  gpuMemoryUtilization: anyNumber.default(0.9),
  dp: z.number().int().default(1),
  enableExpertParallel: z.boolean().default(false),
  moeCommBackend: z.string().default(""),
  modelConfigFolder: z.string().default(""),
  hardwareConfig: z.string().default(""),
  defaultsFilepath: z.string().default(BUNDLED_DEFAULTS),
  alphaCoeffs: z.array(anyNumber).default([0, 0, 0]),
  betaCoeffs: z.array(anyNumber).default([0, 0, 0]),
  seed: z.union([z.number().int(), z.bigint()]).default(42),
  /** Ticks; Infinity stands for the default 9223372036854775807 (unbounded). */
  horizon: anyNumber.default(Infinity),
  log: z.string().default("warn"),
  resultsPath: z.string().default(""),
  // The workload sources' options (src/workload/sources/), in the order of their flags.
  workload: sharedWorkloadShape.workload,
  ...workloadSpecShape,
  /** An in-memory workload spec object (library and sweep use); wins over workloadSpec. */
  workloadSpecObject: z.record(z.string(), z.unknown()).optional(),
  ...csvTraceShape,
  ...replayTraceShape,
  rate: sharedWorkloadShape.rate,
  ...closedLoopShape,
  timeout: sharedWorkloadShape.timeout,
  numRequests: sharedWorkloadShape.numRequests,
  ...distributionShape,
  totalKvBlocks: z.number().int().default(1000000),
  blockSizeInTokens: z.number().int().default(16),
  maxNumRunningReqs: z.number().int().default(256),
  maxNumScheduledTokens: z.number().int().default(2048),
  longPrefillTokenThreshold: z.number().int().default(0),
  /** 0 = derived from the model config (current backends) or unlimited. */
  maxModelLen: z.number().int().default(0),
  /** Current names of maxNumRunningReqs and maxNumScheduledTokens; when given they win. */
  maxNumSeqs: z.number().int().default(256),
  maxNumBatchedTokens: z.number().int().default(2048),
  numInstances: z.number().int().default(1),
  admissionPolicy: z.string().default("always-admit"),
  admissionLatency: z.number().int().default(0),
  routingLatency: z.number().int().default(0),
  routingPolicy: z.string().default("round-robin"),
  routingScorers: z.string().default(""),
  priorityPolicy: z.string().default("constant"),
  scheduler: z.string().default("fcfs"),
  policyConfig: z.string().default(""),
  snapshotRefreshInterval: z.number().int().default(0),
  traceLevel: z.string().default("none"),
  counterfactualK: z.number().int().default(0),
  summarizeTrace: z.boolean().default(false),
  fitnessWeights: z.string().default(""),
  // Extensions beyond BLIS (all default to BLIS behavior).
  sloCacheWeights: z.string().default(
    Object.entries(DEFAULT_SLO_CACHE_WEIGHTS)
      .map(([tier, w]) => `${tier}:${w}`)
      .join(","),
  ),
  sloBaseCritical: anyNumber.default(DEFAULT_SLO_PARAMS.baseCritical),
  sloBaseStandard: anyNumber.default(DEFAULT_SLO_PARAMS.baseStandard),
  sloBaseSheddable: anyNumber.default(DEFAULT_SLO_PARAMS.baseSheddable),
  sloAgeWeight: anyNumber.default(DEFAULT_SLO_PARAMS.ageWeight),
  sloThresholdCritical: z.number().int().default(DEFAULT_SLO_PARAMS.thresholdCritical),
  sloThresholdStandard: z.number().int().default(DEFAULT_SLO_PARAMS.thresholdStandard),
  sloThresholdSheddable: z.number().int().default(DEFAULT_SLO_PARAMS.thresholdSheddable),
  priorityBridge: z.string().default("none"),
  sloPrefillThresholds: z.string().default(""),
  preemptionPolicy: z.string().default("tail"),
  printFairness: z.boolean().default(false),
  plugin: z.array(z.string()).default([]),
  pluginOption: z.array(z.string()).default([]),
  /** Seconds that loading one plugin, or one call into it, may take (watched by the plugin host). */
  pluginTimeout: anyNumber.default(10),
  /** Write a self-contained HTML report of the run here. */
  report: z.string().default(""),
  /** Simulated ticks between time-series samples (reports). */
  reportInterval: z.number().int().default(100000),
  // LoRA adapters (docs/lora.md).
  ...loraOptionsShape,
});

/**
 * The built-in policies' parameters, typed by their descriptors: the run options hold every
 * registered policy's (`runOptionsSchema`), each policy reads its own through its schema.
 */
type BuiltinPolicyParams = ClusterPolicyParams & GatewayPolicyParams & DeciderParams;
type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/** The run's own options, without any policy's or feature's. */
export type CoreRunOptions = z.infer<typeof RunOptionsSchema>;
export type RunOptions = CoreRunOptions & BuiltinPolicyParams;
/** A run's input: the run options and the built-in policies' and features' options (each reads its own). */
export type RunInput = z.input<typeof RunOptionsSchema> & Optional<BuiltinPolicyParams> & BuiltinFeatureOptions;

/** Every run option at its default (what a run uses for an option not given). */
export const RUN_DEFAULTS: Readonly<CoreRunOptions> = RunOptionsSchema.parse({});

/**
 * The run-option schema with the options of registered policies, features and latency backends
 * (built-ins, plugins, library users); each reads its own values once, through its own schema, when
 * a run is configured (docs/architecture.md "Configuration: parsed once, derived once").
 */
export function runOptionsSchema(): z.ZodType<RunOptions, RunInput> {
  const known = RunOptionsSchema.shape as Record<string, unknown>;
  const extra: Record<string, z.ZodType> = {};
  for (const schema of [...paramSchemas(), ...workloadSources.ranked().map((s) => s.params)]) {
    for (const [k, v] of Object.entries(schema.shape)) if (!(k in known)) extra[k] = v;
  }
  // The registries are filled at run time, so the extended schema's type is known only as the
  // built-ins' (RunOptions); a plugin's parameters are read through the plugin's own schema.
  return RunOptionsSchema.extend(extra) as unknown as z.ZodType<RunOptions, RunInput>;
}

import type { z } from "zod";
import { DEFAULT_SCORERS, HORIZON_MAX_TEXT, RunOptionsSchema, type RunOptions } from "./runOptions.js";
import type { FlagType, ParamFlag, ParamSchema, PolicyFamilyView } from "../util/policyRegistry.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { scorers } from "../cluster/scorers/scorer.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import { runParamFlags } from "./policyFamilies.js";
import type { AnyFlagDef, FlagDef, FlagSpec } from "./flagDef.js";
import { MODEL_FLAGS, WORKLOAD_FLAGS } from "./runFlagsModel.js";
import { LORA_FLAGS } from "./runFlagsLora.js";
import { workloadSources } from "../workload/sources/registry.js";

export type { FlagType, AnyFlagDef, FlagDef };

/** How `--help` prints a schema field's default: lists comma-joined, the unbounded horizon as Go's max int64. */
export function printedDefault(field: z.ZodType | undefined): string {
  const r = field?.safeParse(undefined);
  if (r === undefined || !r.success || r.data === undefined) return "";
  return r.data === Infinity ? HORIZON_MAX_TEXT : String(r.data);
}

/**
 * A table entry with its printed default; keeps the entry's getters (choice flags list registered names when printed).
 */
function withDefault(f: FlagSpec): FlagDef {
  const field = (RunOptionsSchema.shape as Record<string, z.ZodType>)[f.key];
  return Object.assign(f, { def: f.shown ?? printedDefault(field) });
}

/** A policy parameter's flag, its default read from the policy's schema. */
function paramFlag(f: ParamFlag, schema: { shape: Record<string, z.ZodType> }): AnyFlagDef {
  return {
    key: f.key,
    flag: f.flag,
    type: f.type,
    def: f.shown ?? printedDefault(schema.shape[f.key]),
    group: f.group,
    help: f.help,
    ...(f.metavar !== undefined ? { metavar: f.metavar } : {}),
  };
}

/** A policy-selection flag whose help lists the registered names (read when printed). */
function choiceFlag(key: keyof RunOptions, flag: string, registry: PolicyFamilyView): FlagSpec {
  return {
    key,
    flag,
    type: "string",
    group: "policy",
    get help() {
      return registry.listed().join(", ");
    },
  };
}

/**
 * Every `blis run` flag (BLIS's, the SLO extensions and this simulator's own; README.md
 * "Flags of `blis run`").
 */
const RUN_FLAG_TABLE: FlagSpec[] = [
  ...MODEL_FLAGS,
  ...WORKLOAD_FLAGS,
  {
    key: "totalKvBlocks",
    flag: "--total-kv-blocks",
    type: "int64",
    group: "kv",
    help: "GPU KV blocks per instance (default: derived from GPU memory, or the blackbox entry's count)",
  },
  { key: "blockSizeInTokens", flag: "--block-size-in-tokens", type: "int64", group: "kv", help: "tokens per KV block" },
  {
    key: "maxNumSeqs",
    flag: "--max-num-seqs",
    type: "int64",
    group: "engine",
    help: "maximum running batch size (vLLM max_num_seqs)",
  },
  {
    key: "maxNumBatchedTokens",
    flag: "--max-num-batched-tokens",
    type: "int64",
    group: "engine",
    help: "token budget per step (vLLM max_num_batched_tokens)",
  },
  {
    key: "maxNumRunningReqs",
    flag: "--max-num-running-reqs",
    type: "int64",
    group: "engine",
    help: "older name of --max-num-seqs",
  },
  {
    key: "maxNumScheduledTokens",
    flag: "--max-num-scheduled-tokens",
    type: "int64",
    group: "engine",
    help: "older name of --max-num-batched-tokens",
  },
  {
    key: "longPrefillTokenThreshold",
    flag: "--long-prefill-token-threshold",
    type: "int64",
    group: "engine",
    help: "chunked-prefill cap per request per step; 0 = no chunking",
  },
  {
    key: "maxModelLen",
    flag: "--max-model-len",
    type: "int64",
    group: "engine",
    help: "longest prompt + output served; longer requests are dropped (default: from config.json, capped by KV capacity; ignored by blackbox)",
  },
  {
    key: "numInstances",
    flag: "--num-instances",
    type: "int",
    group: "cluster",
    help: "instances in the cluster (1 to 10000)",
  },
  choiceFlag("admissionPolicy", "--admission-policy", admissionPolicies),
  {
    key: "admissionLatency",
    flag: "--admission-latency",
    type: "int64",
    group: "cluster",
    help: "ticks from arrival to the admission decision",
  },
  {
    key: "routingLatency",
    flag: "--routing-latency",
    type: "int64",
    group: "cluster",
    help: "ticks from admission to the routing decision",
  },
  choiceFlag("routingPolicy", "--routing-policy", routingPolicies),
  {
    key: "routingScorers",
    flag: "--routing-scorers",
    type: "string",
    group: "policy",
    get help() {
      const def = DEFAULT_SCORERS.map((x) => `${x.name}:${x.weight}`).join(",");
      return `weighted routing scorers "name:weight,..." over ${scorers.listed().join(", ")} (default ${def})`;
    },
  },
  choiceFlag("priorityPolicy", "--priority-policy", priorityPolicies),
  choiceFlag("scheduler", "--scheduler", schedulers),
  {
    key: "policyConfig",
    flag: "--policy-config",
    type: "string",
    group: "policy",
    help: "policy bundle YAML; explicit flags win over its values",
  },
  {
    key: "snapshotRefreshInterval",
    flag: "--snapshot-refresh-interval",
    type: "int64",
    group: "cluster",
    help: "ticks between refreshes of instance-reported routing signals; 0 = always fresh",
  },
  { key: "traceLevel", flag: "--trace-level", type: "string", group: "output", help: "none or decisions" },
  {
    key: "counterfactualK",
    flag: "--counterfactual-k",
    type: "int",
    group: "output",
    help: "candidates kept per routing decision for regret (needs --trace-level decisions)",
  },
  {
    key: "summarizeTrace",
    flag: "--summarize-trace",
    type: "bool",
    group: "output",
    help: "print the decision-trace summary",
  },
  {
    key: "fitnessWeights",
    flag: "--fitness-weights",
    type: "string",
    group: "output",
    help: '"key:weight,..." over throughput, tokens_per_sec, p99_ttft, p50_ttft, mean_ttft, p99_e2e, p50_e2e, mean_e2e',
  },
  {
    key: "log",
    flag: "--log",
    type: "string",
    group: "output",
    help: "stderr log level: trace, debug, info, warn, error, fatal, panic",
  },
  {
    key: "resultsPath",
    flag: "--results-path",
    type: "string",
    group: "output",
    help: "write the cluster metrics and per-request records (JSON) here",
  },
  {
    key: "sloCacheWeights",
    flag: "--slo-cache-weights",
    type: "string",
    group: "extension",
    help: "slo-priority scorer: per-tier weight of prefix affinity vs load, each in [0, 1]",
  },
  {
    key: "sloBaseCritical",
    flag: "--slo-base-critical",
    type: "float",
    group: "extension",
    help: "slo-tiered/slo-class base score of critical requests",
  },
  {
    key: "sloBaseStandard",
    flag: "--slo-base-standard",
    type: "float",
    group: "extension",
    help: "base score of standard (and unlabeled) requests",
  },
  {
    key: "sloBaseSheddable",
    flag: "--slo-base-sheddable",
    type: "float",
    group: "extension",
    help: "base score of sheddable, batch and background requests",
  },
  {
    key: "sloAgeWeight",
    flag: "--slo-age-weight",
    type: "float",
    group: "extension",
    help: "slo-tiered urgency per tick waited past the tier threshold",
  },
  {
    key: "sloThresholdCritical",
    flag: "--slo-threshold-critical",
    type: "int64",
    group: "extension",
    help: "slo-tiered grace ticks before urgency grows (critical)",
  },
  {
    key: "sloThresholdStandard",
    flag: "--slo-threshold-standard",
    type: "int64",
    group: "extension",
    help: "grace ticks (standard)",
  },
  {
    key: "sloThresholdSheddable",
    flag: "--slo-threshold-sheddable",
    type: "int64",
    group: "extension",
    help: "grace ticks (sheddable)",
  },
  {
    key: "priorityBridge",
    flag: "--priority-bridge",
    type: "string",
    group: "extension",
    help: "router priority hint from the SLO tier: none, hint, floor",
  },
  {
    key: "sloPrefillThresholds",
    flag: "--slo-prefill-thresholds",
    type: "string",
    group: "extension",
    help: 'per-class chunking thresholds "class:tokens,..." (classes critical, standard, sheddable, batch, background, default)',
  },
  {
    key: "preemptionPolicy",
    flag: "--preemption-policy",
    type: "string",
    group: "extension",
    help: "preemption victim: fcfs (the last running request; tail is its seed name), priority (the least urgent) or slo-aware",
  },
  {
    key: "printFairness",
    flag: "--print-fairness",
    type: "bool",
    group: "extension",
    help: "print Jain fairness over tenants",
  },
  {
    key: "plugin",
    flag: "--plugin",
    type: "strings",
    group: "extension",
    help: "ES module adding policies or scorers (repeatable)",
  },
  {
    key: "pluginOption",
    flag: "--plugin-option",
    type: "strings",
    metavar: "plugin.key=value",
    group: "extension",
    help: "plugin option as plugin.key=value (repeatable); read by the plugin through api.options",
  },
  {
    key: "pluginTimeout",
    flag: "--plugin-timeout",
    type: "float",
    metavar: "seconds",
    group: "extension",
    help: "wall-clock budget of loading each plugin and of each call into one; a plugin over it ends the run (exit 1)",
  },
  {
    key: "report",
    flag: "--report",
    type: "string",
    group: "output",
    help: "write a self-contained HTML report (charts, time series, metrics) to this file",
  },
  {
    key: "reportInterval",
    flag: "--report-interval",
    type: "int64",
    group: "output",
    help: "simulated µs (ticks) between time-series samples in the report; doubled until the series fits its memory cap",
  },
  ...LORA_FLAGS,
];

/** The flag table with each flag's printed default. */
export const RUN_FLAGS: FlagDef[] = RUN_FLAG_TABLE.map(withDefault);

/**
 * The flags of `blis run`: RUN_FLAGS plus the option flags of policies, features, latency backends
 * and workload sources registered beyond the built-ins (in-process registrations; plugins load
 * after flags are parsed and use bundle keys).
 */
export function runFlags(): AnyFlagDef[] {
  const placed = new Set<string>(RUN_FLAGS.map((f) => f.key));
  const place = (p: SchemaFlag): AnyFlagDef[] => {
    if (placed.has(p.flag.key)) return [];
    placed.add(p.flag.key);
    return [paramFlag(p.flag, p.schema)];
  };
  const out: AnyFlagDef[] = [];
  for (const f of RUN_FLAGS) {
    out.push(f);
    const family = FAMILY_PARAMS_AFTER.get(f.key);
    if (family !== undefined) out.push(...familyParamFlags(family).flatMap(place));
  }
  const sources = workloadSources.ranked().flatMap((s) => s.flags.map((flag) => ({ flag, schema: s.params })));
  out.push(...[...runParamFlags(), ...sources].flatMap(place));
  return out;
}

/** A registered option flag with the schema holding its default. */
interface SchemaFlag {
  flag: ParamFlag;
  schema: ParamSchema<unknown>;
}

/** The flags after which a policy family's parameter flags print: the flag that selects its policy. */
const FAMILY_PARAMS_AFTER: ReadonlyMap<string, PolicyFamilyView> = new Map<string, PolicyFamilyView>([
  ["admissionPolicy", admissionPolicies],
  ["routingPolicy", routingPolicies],
  ["routingScorers", scorers],
  ["priorityPolicy", priorityPolicies],
  ["scheduler", schedulers],
]);

/** The parameter flags of a family's registered policies, in registration order. */
function familyParamFlags(family: PolicyFamilyView): SchemaFlag[] {
  return family.all().flatMap((p) => p.flags.map((flag) => ({ flag, schema: p.params })));
}

import type { PreemptionRule } from "../policy/preemption.js";
import type { LatencyModel } from "../latency/model.js";
import type { ScorerChoice } from "../cluster/scorers/scorer.js";
import type { AdmissionContext, AdmissionPolicy } from "../cluster/admission/admission.js";
import type { RoutingContext, RoutingPolicy } from "../cluster/routing/routing.js";
import type { PriorityContext, PriorityPolicy } from "../policy/priority.js";
import type { Scheduler, SchedulerContext } from "../policy/scheduler.js";
import type { KvSettings } from "../kv/createKvStore.js";
import type { SloParams } from "../policy/sloTiers.js";
import type { ActiveFeature } from "../features/registry.js";

/** Per-instance batch limits and chunking (docs/behavior.md). */
export interface EngineSettings {
  maxRunning: number;
  maxScheduledTokens: number;
  longPrefillThreshold: number;
  /** Per-SLO-class chunking thresholds; null = the global threshold for everyone. */
  sloPrefillThresholds: Map<string, number> | null;
  /** Longest prompt + output an instance serves; 0 = unlimited. */
  maxModelLen: number;
}

/**
 * A cluster-level decision: which policy decides, its factory (parameters read at configuration
 * time, typed by the policy's schema) and how many ticks it takes.
 */
export interface StageSettings<C, T> {
  policy: string;
  build: (context: C) => T;
  latency: number;
}

export interface RoutingSettings extends StageSettings<RoutingContext, RoutingPolicy> {
  scorers: readonly ScorerChoice[];
  sloCacheWeights: [number, number, number];
  /** Ticks between refreshes of instance-reported routing signals; 0 = always fresh. */
  snapshotRefreshInterval: number;
}

export interface ClusterSettings {
  numInstances: number;
  /** The model every instance serves (lower-cased --model); absent: any model. */
  model?: string;
  admission: StageSettings<AdmissionContext, AdmissionPolicy>;
  routing: RoutingSettings;
}

/** Instance-level policies and the SLO tiers they share with the router. */
export interface InstancePolicies {
  priority: string;
  buildPriority: (context: PriorityContext) => PriorityPolicy;
  scheduler: string;
  buildScheduler: (context: SchedulerContext) => Scheduler;
  preemption: PreemptionRule;
  priorityBridge: "none" | "hint" | "floor";
  slo: SloParams;
}

export interface TraceSettings {
  level: "none" | "decisions";
  counterfactualK: number;
}

/** A fully resolved and validated simulation setup (what the cluster is built from). */
export interface SimConfig {
  /** Last tick that is still simulated; Infinity = unbounded. */
  horizon: number;
  /** Builds one latency model per instance. */
  latency: () => LatencyModel;
  engine: EngineSettings;
  kv: KvSettings;
  cluster: ClusterSettings;
  policy: InstancePolicies;
  trace: TraceSettings;
  /** Registered features that are on, bound to their settings (src/features/); empty: none. */
  features: readonly ActiveFeature[];
}

export { DEFAULT_SCORERS, HORIZON_MAX_TEXT } from "../config/runOptions.js";

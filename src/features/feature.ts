// A feature of a run (docs/extending.md "Adding a feature"): one object naming itself, its options
// (a zod schema whose defaults are the only defaults), the flags and bundle keys of those options,
// the features it cannot run with, how it derives its typed settings, and what it attaches to the
// cluster. Flags, --help, bundle keys and the compatibility check are derived from it.

import type { ParamFlag, ParamSchema } from "../util/policyRegistry.js";
import type { Logger } from "../util/log.js";
import type { Instance } from "../instance/instance.js";
import type { ClusterExtension, Incompatibility } from "../cluster/extension.js";
import type { LatencyModel } from "../latency/model.js";
import type { RequestLedger } from "../core/ledger.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import type { AdapterRef } from "../lora/resolve.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import type { KvCache } from "../kv/kvCache.js";
import type { KvSettings } from "../kv/createKvStore.js";
import type { FleetProbe, GatewayProbe } from "../metrics/timeSeries.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import type { SloTargets } from "../metrics/sloTargets.js";
import type { ResolvedLatency } from "../latency/backends/backend.js";
import type { ResolvedModelConfig } from "../latency/modelConfig.js";
import type { PolicyRegistry } from "../util/policyRegistry.js";
import type { RoutingPolicy } from "../cluster/routing/routing.js";
import type { ScorerSpec } from "../cluster/routing/context.js";
import type { EndedRequest } from "../workload/index.js";
import type { PdProjection } from "../pd/projection.js";

export type { Incompatibility };

/** The run's values owned by other stages, as a feature may read them when it derives its settings. */
export interface Deployment {
  readonly numInstances: number;
  /** GPU label and tensor parallelism of the resolved latency backend ("" = unknown GPU). */
  readonly hardware: string;
  readonly tp: number;
  /** KV blocks per instance and tokens per block (the latency backend's resolved capacity). */
  readonly totalKvBlocks: number;
  readonly blockSize: number;
  /** Last simulated tick; Infinity = unbounded. */
  readonly horizon: number;
  /** The served model (lower-cased --model) and the latency backend's name. */
  readonly model: string;
  readonly backend: string;
  /** The run's master seed: a feature draws from its own named streams of it (src/engine/rng.ts). */
  readonly seed: bigint;
  /** The admission policy the run selected (the gateway's saturation-gated policies need its counters). */
  readonly admissionPolicy: string;
  /** Running requests per instance (--max-num-seqs). */
  readonly maxRunning: number;
}

/** What the latency stage offers a feature that prices extra GPU work (a draft model, a head layer). */
export interface LatencyServices {
  /** The served model's decoder layer count, from its config.json; throws when it cannot be read. */
  targetLayers(): Promise<number>;
  /** The run's latency backend resolved again for `model` on the same GPU at `tp` GPUs (one model per call). */
  latencyFor(model: string, tp: number): Promise<() => LatencyModel>;
  /** The served model's config.json as the latency stage found it (its text and where it came from). */
  modelConfig(): Promise<Pick<ResolvedModelConfig, "text" | "path" | "exactName">>;
  /**
   * The run's latency backend resolved again with some deployment options replaced (a pool's own
   * TP, GPU, backend or max-model-len); the run's KV capacity is the fallback of a backend without one.
   */
  resolveWith(overrides: LatencyOverrides): Promise<ResolvedLatency>;
}

/** Deployment options a feature may resolve the latency backend with instead of the run's. */
export interface LatencyOverrides {
  tp?: number;
  hardware?: string;
  latencyModel?: string;
  maxModelLen?: number;
}

/** What the policy stage offers a feature that routes or decides itself (PD's pool routers and decider). */
export interface PolicyServices {
  /** Policy `name` of `registry`, bound to its parameters in the run's options (checked by its schema). */
  bind<C, T>(registry: PolicyRegistry<C, T>, name: string): (context: C) => T;
  /**
   * A router over the run's instances: weighted over `scorers` when given, else the run's routing
   * policy with its scorers; each call builds one with its own state.
   */
  routingPolicy(scorers: readonly ScorerSpec[] | null): () => RoutingPolicy;
  /** --cache-signal-delay: how old the instance caches are that a router reads, ticks. */
  readonly cacheSignalDelay: number;
}

/** The defaults file (--defaults-filepath): a feature may keep its own block there. */
export interface DefaultsFile {
  readonly path: string;
  /** Its top-level block `key` (undefined: none); the file is read on the first call. */
  block(key: string): unknown;
}

/** What a feature's option checks see: which options were given, and the log. */
export interface CheckContext {
  readonly explicit: ReadonlySet<string>;
  readonly log: Logger;
}

export interface FeatureContext {
  /** Option keys given on the command line or by the caller (they win over bundles). */
  readonly explicit: ReadonlySet<string>;
  readonly log: Logger;
  readonly defaultsFile: DefaultsFile;
  /**
   * What other stages own. A feature that reserves GPU memory (`reservedBytes`) derives its
   * settings before the latency backend exists: reading this or `latency` then is an internal error.
   */
  readonly deployment: Deployment;
  readonly latency: LatencyServices;
  readonly policies: PolicyServices;
  /** What the resolved workload sets for features (its goodput targets); not known to early features either. */
  readonly workload: WorkloadSettings;
}

/** What the workload spec or trace header sets beyond requests. */
export interface WorkloadSettings {
  /** Goodput targets by class, from the spec and the trace header (docs/gateway.md "Goodput"). */
  readonly sloTargets: { spec?: Record<string, SloTargets>; header?: Record<string, SloTargets> };
}

/** What a feature may check of the workload before the run (whether or not it is on). */
export interface WorkloadFacts {
  /** The LoRA adapters the workload names, each with the first place that names it. */
  readonly adapterRefs: readonly AdapterRef[];
}

/** What a started feature gives the cluster and the results. */
export interface FeatureRun {
  /** Attached to the cluster loop (docs/architecture.md "Cluster extensions"); null: none. */
  readonly extension: ClusterExtension | null;
  /** Its results when the run ends (where they print: the feature's `metricsKey`); undefined: none. */
  results?(ended: FeatureEnd): unknown;
  /** Its text block after the metrics on stdout (features in registration order); "" or absent: none. */
  stdout?(ended: FeatureEnd): string;
  /** The fleet's lifecycle states, sampled into the time series (the feature that owns the fleet). */
  readonly fleet?: FleetProbe;
  /** The gateway queue's depth per band, sampled into the time series. */
  readonly queue?: GatewayProbe;
  /**
   * Builds every instance's KV store from its GPU capacity in place of the single-tier store (the CPU
   * tier); the first feature of a run that gives one builds them all.
   */
  readonly kvStore?: (gpu: KvSettings, log: Logger) => KvCache;
  /**
   * Adds its parts to the metrics outside the cluster block's keys (the gateway's counters, tenants
   * and goodput), before any feature's `results`.
   */
  addMetrics?(metrics: SimulationMetrics, ended: FeatureEnd): void;
  /** Last, after every feature's results: may rewrite the cluster block (the saturation labels). */
  finish?(metrics: SimulationMetrics, ended: FeatureEnd): void;
  /** What instance `index` is built with beyond the run's configuration (a PD pool's role and hardware). */
  readonly instanceRole?: (index: number) => InstanceRole;
  /** The age of the instance caches the router reads, ticks, when this feature reads them (PD's decider). */
  readonly cacheSignalDelay?: number;
  /**
   * Sets the instances' completion hooks in place of `userLeave` on each (PD: sub-requests go to its
   * controller, which passes a user request on to `userLeave` when it ends); `userLeave` null: none.
   */
  readonly wireLeave?: (instances: readonly Instance[], userLeave: LeaveHandler | null) => void;
  /**
   * The user requests when instances served parts of them (PD's sub-requests): the cluster block
   * and the outputs then describe these.
   */
  readonly projectUsers?: (instanceLedger: RequestLedger, instances: readonly Instance[]) => PdProjection;
  /** Requests counted in flight at instance `index` but in neither of its queues at the end (PD's decode picks). */
  readonly pendingInFlight?: (index: number) => number;
}

/** What is told when a user request leaves its instance (the closed loop's next round). */
export type LeaveHandler = (req: EndedRequest, t: number, dropped: boolean) => void;

/** What one instance of a feature's fleet is built with (absent parts: the run's). */
export interface InstanceRole {
  /** False: it only prefills (its decode never runs there). */
  readonly decodes: boolean;
  readonly latency?: () => LatencyModel;
  readonly totalKvBlocks?: number;
  /** 0 = unlimited. */
  readonly maxModelLen?: number;
}

/** A finished run's started features (its outputs find a feature's run by name). */
export interface StartedFeatures {
  readonly features: readonly { readonly feature: { readonly name: string }; readonly run: FeatureRun }[];
}

/** What a feature sees of a cluster being built. */
export interface FeatureStartContext {
  /**
   * The fleet. Features start before the instances are built (an `instances` extension gives each
   * its part), so it fills later: read it when events run.
   */
  readonly instances: readonly Instance[];
  /** Builds instance `index` from the run's configuration, every feature's part included (a fleet that grows). */
  buildInstance(index: number): Instance;
  /** The decision trace (--trace-level decisions); null: off. */
  readonly trace: DecisionTrace | null;
  /** The ledger instances write (in a PD run the sub-requests'). */
  readonly ledger: RequestLedger;
  readonly log: Logger;
}

/** What a feature sees of a run that ended. */
export interface FeatureEnd {
  /** The user requests (a disaggregated run's projected ledger, not its sub-requests). */
  readonly users: RequestLedger;
  /** The cluster metrics block so far (the run's duration, counts). */
  readonly cluster: Readonly<MetricsBlock>;
  /** The tick the run ended at. */
  readonly end: number;
}

/**
 * An option set only by the policy bundle (a mapping or list with no flag form): the value at the
 * dotted `bundle` path, checked by the schema field `key` when the bundle is loaded.
 */
export interface BundleKey {
  readonly key: string;
  readonly bundle: string;
}

/** A feature with options `P` (what its flags and bundle keys set) and settings `S` (what it runs with). */
export interface Feature<P, S> {
  readonly name: string;
  /** One line for listings. */
  readonly description: string;
  readonly params: ParamSchema<P>;
  readonly flags: readonly ParamFlag[];
  /** Options only the policy bundle sets (node pools, lifecycle); absent: none. */
  readonly bundleKeys?: readonly BundleKey[];
  /** Features it cannot run with: a list, or one from its settings (what it does decides what conflicts). */
  readonly incompatible?: readonly Incompatibility[] | ((settings: S) => readonly Incompatibility[]);
  /**
   * The key of the cluster metrics block its results print under, for results whose place earlier
   * releases fixed (speculative decoding's `speculative`); absent: `features.<name>`.
   */
  readonly metricsKey?: string;
  /**
   * On but constraining nothing with these settings: other features' refusals ignore it (the
   * gateway counting goodput only). Absent: never inert.
   */
  inert?(settings: S): boolean;
  /**
   * Checks option values whether or not the feature is on (a bad value is a mistake either way),
   * when the feature is configured; warnings about options without effect go to `log`.
   */
  validate?(params: P, context: CheckContext): void;
  /**
   * Its `validate` runs right after the policy bundle, before the policies are checked, where BLIS
   * checks these options (PD); absent: when it is configured, after the policies.
   */
  readonly checkedBeforePolicies?: boolean;
  /** Its settings for this run, or null when it is off (refusals are UserErrors naming the flag). */
  settings(params: P, context: FeatureContext): S | null | Promise<S | null>;
  /**
   * GPU memory it sets aside on every instance, bytes, before the latency backend derives the KV
   * capacity (LoRA's resident adapters). A feature declaring it is configured before the latency
   * backend, with the deployment not known yet.
   */
  reservedBytes?(settings: S): number;
  /**
   * Most instances it may add during the run beyond the startup ones (an autoscaler's budget): the
   * router is built for the startup fleet plus these.
   */
  extraInstances?(settings: S): number;
  /** Checks the workload against its settings (null: off) before the run: a bad reference is a UserError. */
  checkWorkload?(settings: S | null, workload: WorkloadFacts): void;
  /** Starts it for one run (each run gets its own state). */
  start(settings: S, context: FeatureStartContext): FeatureRun;
}

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
}

/** The defaults file (--defaults-filepath): a feature may keep its own block there. */
export interface DefaultsFile {
  readonly path: string;
  /** Its top-level block `key` (undefined: none); the file is read on the first call. */
  block(key: string): unknown;
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
  /** Checks option values whether or not the feature is on (a bad value is a mistake either way). */
  validate?(params: P): void;
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

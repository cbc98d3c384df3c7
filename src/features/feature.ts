// A feature of a run (docs/extending.md "Adding a feature"): one object naming itself, its options
// (a zod schema whose defaults are the only defaults), the flags and bundle keys of those options,
// the features it cannot run with, how it derives its typed settings, and what it attaches to the
// cluster. Flags, --help, bundle keys and the compatibility check are derived from it.

import type { ParamFlag, ParamSchema } from "../util/policyRegistry.js";
import type { Logger } from "../util/log.js";
import type { Instance } from "../instance/instance.js";
import type { ClusterExtension, Incompatibility } from "../cluster/extension.js";

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
}

export interface FeatureContext {
  /** Option keys given on the command line or by the caller (they win over bundles). */
  readonly explicit: ReadonlySet<string>;
  readonly log: Logger;
  readonly deployment: Deployment;
}

/** What a started feature gives the cluster and the results. */
export interface FeatureRun {
  /** Attached to the cluster loop (docs/architecture.md "Cluster extensions"); null: none. */
  readonly extension: ClusterExtension | null;
  /** Its results when the run ends, printed under its name in the cluster block's `features`. */
  results?(): unknown;
}

/** What a feature sees of a cluster being built. */
export interface FeatureStartContext {
  readonly instances: readonly Instance[];
  readonly log: Logger;
}

/** A feature with options `P` (what its flags and bundle keys set) and settings `S` (what it runs with). */
export interface Feature<P, S> {
  readonly name: string;
  /** One line for listings. */
  readonly description: string;
  readonly params: ParamSchema<P>;
  readonly flags: readonly ParamFlag[];
  readonly incompatible?: readonly Incompatibility[];
  /** Checks option values whether or not the feature is on (a bad value is a mistake either way). */
  validate?(params: P): void;
  /** Its settings for this run, or null when it is off. */
  settings(params: P, context: FeatureContext): S | null;
  /** Starts it for one run (each run gets its own state). */
  start(settings: S, context: FeatureStartContext): FeatureRun;
}

// A workload source (docs/extending.md "Adding a workload source"): one object naming itself, its
// options (a zod schema whose defaults are the only defaults), their flags, its rank among the
// sources, when it is selected and what it produces. A run's options select one source: the
// lowest-ranked one whose `selects` holds; its settings are read once, through its schema.

import type { WorkloadRequest } from "../../core/workloadRequest.js";
import type { Logger } from "../../util/log.js";
import type { ParamFlag, ParamSchema } from "../../util/policyRegistry.js";
import type { WorkloadSpec } from "../spec/types.js";
import type { TraceHeader } from "../trace/traceV2.js";

/** The run's values every source may read (they belong to the run, not to one source). */
export interface SourceContext {
  /** Option keys given on the command line or by the caller (a given flag may replace a spec's value). */
  readonly explicit: ReadonlySet<string>;
  readonly log: Logger;
  /** --seed as a signed 64-bit integer. */
  readonly seed: bigint;
  /** --horizon in ticks (Infinity = unbounded). */
  readonly horizon: number;
  /** --defaults-filepath (its `workloads:` block holds the presets). */
  readonly defaultsFilepath: string;
}

/** A workload spec for the generator, with the cap and horizon the run uses. */
export interface SpecOutput {
  readonly kind: "spec";
  readonly spec: WorkloadSpec;
  /** Most requests generated (0 or less: bounded by the horizon or the spec's lifecycle windows). */
  readonly maxRequests: number;
  readonly horizon: number;
  /** Virtual users keep requests outstanding (their requests are generated up front). */
  readonly closedLoop: boolean;
}

/** Requests given one by one, in arrival order. */
export interface RequestsOutput {
  readonly kind: "requests";
  readonly requests: WorkloadRequest[];
  readonly horizon: number;
  /** Some request carries a client deadline. */
  readonly deadlines: boolean;
  /** Goodput targets the source names (a trace header's). */
  readonly sloTargets?: TraceHeader["goodput_slo_targets"];
}

export type SourceOutput = SpecOutput | RequestsOutput;

/** A workload source with options `P`. */
export interface WorkloadSource<P> {
  readonly name: string;
  /** One line for listings. */
  readonly description: string;
  readonly params: ParamSchema<P>;
  /** The flags of its own options (options several sources read keep their flags in the run's table). */
  readonly flags: readonly ParamFlag[];
  /** Precedence: sources are asked in rank order, lowest first; the first that selects the options runs. */
  readonly rank: number;
  /** Checks option values whether or not the source is selected (a bad value is a mistake either way). */
  validate?(params: P): void;
  /** Refuses options this source cannot combine with, once every source's values are checked. */
  conflicts?(params: P, context: SourceContext): void;
  /** Whether the options ask for this source (lower-ranked sources win when several do). */
  selects(params: P): boolean;
  /** The workload it produces; refusals are UserErrors naming the flag. */
  resolve(params: P, context: SourceContext): SourceOutput;
}

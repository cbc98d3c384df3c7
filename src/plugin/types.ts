// Types for plugin authors. A plugin is an ES module exporting `register(api)` (or a default
// export with that function); it adds policies to the same registries the built-ins use, either
// as descriptors (with parameters: docs/extending.md) or as a name and a bare factory.
import type { AdmissionDescriptor, AdmissionFactory } from "../cluster/admission/admission.js";
import type { ScorerDescriptor, ScorerFactory } from "../cluster/scorers/scorer.js";
import type { PriorityDescriptor, PriorityFactory } from "../policy/priority.js";
import type { SchedulerDescriptor, SchedulerFactory } from "../policy/scheduler.js";
import type { RoutingDescriptor, RoutingFactory } from "../cluster/routing/routing.js";

export type {
  AdmissionPolicy,
  AdmissionContext,
  AdmissionFactory,
  AdmissionDescriptor,
} from "../cluster/admission/admission.js";
export type { Scorer, ScorerFactory, ScorerDescriptor } from "../cluster/scorers/scorer.js";
export type { PriorityPolicy, PriorityContext, PriorityFactory, PriorityDescriptor } from "../policy/priority.js";
export type { Scheduler, SchedulerFactory, SchedulerDescriptor } from "../policy/scheduler.js";
export type { RoutingPolicy, RoutingContext, RoutingFactory, RoutingDescriptor } from "../cluster/routing/routing.js";
export type { RouterState, InstanceSnapshot } from "../cluster/snapshot.js";
export type { Request } from "../core/request.js";
export type { PolicyDescriptor, ParamFlag } from "../util/policyRegistry.js";
import type { ParamFlag } from "../util/policyRegistry.js";

/** A plain parameter default: its --plugin-option value is read as the same type. */
export type PlainParamValue = number | string | boolean;
export type PlainParams = Record<string, PlainParamValue>;

/** A descriptor in plain JavaScript (no zod): parameters as a plain object of defaults, or none. */
export interface PlainDescriptor<C, T, P extends PlainParams = Record<string, never>> {
  readonly name: string;
  readonly description?: string;
  readonly params?: P;
  readonly flags?: readonly ParamFlag[];
  validate?(params: P): void;
  summary?(params: P): string;
  create(params: P, context: C): T;
}

/** The plain descriptor of the family whose bare factory is `F`. */
type PlainFor<F extends (context: never) => unknown, P extends PlainParams> = PlainDescriptor<
  Parameters<F>[0],
  ReturnType<F>,
  P
>;

export interface PluginApi {
  /** Options given with --plugin-option name.key=value for this plugin. */
  readonly options: Readonly<Record<string, string>>;
  registerScorer<P>(descriptor: ScorerDescriptor<P>): void;
  registerScorer(name: string, factory: ScorerFactory): void;
  registerScorer<P extends PlainParams>(descriptor: PlainFor<ScorerFactory, P>): void;
  registerAdmissionPolicy<P>(descriptor: AdmissionDescriptor<P>): void;
  registerAdmissionPolicy(name: string, factory: AdmissionFactory): void;
  registerAdmissionPolicy<P extends PlainParams>(descriptor: PlainFor<AdmissionFactory, P>): void;
  registerPriorityPolicy<P>(descriptor: PriorityDescriptor<P>): void;
  registerPriorityPolicy(name: string, factory: PriorityFactory): void;
  registerPriorityPolicy<P extends PlainParams>(descriptor: PlainFor<PriorityFactory, P>): void;
  registerScheduler<P>(descriptor: SchedulerDescriptor<P>): void;
  registerScheduler(name: string, factory: SchedulerFactory): void;
  registerScheduler<P extends PlainParams>(descriptor: PlainFor<SchedulerFactory, P>): void;
  registerRoutingPolicy<P>(descriptor: RoutingDescriptor<P>): void;
  registerRoutingPolicy(name: string, factory: RoutingFactory): void;
  registerRoutingPolicy<P extends PlainParams>(descriptor: PlainFor<RoutingFactory, P>): void;
}

export interface PluginModule {
  name?: string;
  register(api: PluginApi): void | Promise<void>;
}

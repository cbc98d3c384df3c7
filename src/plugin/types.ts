// Types for plugin authors. A plugin is an ES module exporting `register(api)` (or a default
// export with that function); it adds policies to the same registries the built-ins use, either
// as descriptors (with parameters: docs/extending.md) or as a name and a bare factory.
import type { AdmissionDescriptor, AdmissionFactory } from "../cluster/admission/admission.js";
import type { ScorerDescriptor, ScorerFactory } from "../cluster/scorers/scorer.js";
import type { PriorityDescriptor, PriorityFactory } from "../policy/priority.js";
import type { SchedulerDescriptor, SchedulerFactory } from "../policy/scheduler.js";
import type { RoutingDescriptor, RoutingFactory } from "../cluster/routing/routing.js";

export type { AdmissionPolicy, AdmissionContext, AdmissionFactory, AdmissionDescriptor } from "../cluster/admission/admission.js";
export type { Scorer, ScorerFactory, ScorerDescriptor } from "../cluster/scorers/scorer.js";
export type { PriorityPolicy, PriorityContext, PriorityFactory, PriorityDescriptor } from "../policy/priority.js";
export type { Scheduler, SchedulerFactory, SchedulerDescriptor } from "../policy/scheduler.js";
export type { RoutingPolicy, RoutingContext, RoutingFactory, RoutingDescriptor } from "../cluster/routing/routing.js";
export type { RouterState, InstanceSnapshot } from "../cluster/snapshot.js";
export type { Request } from "../core/request.js";
export type { PolicyDescriptor, ParamFlag } from "../util/policyRegistry.js";

export interface PluginApi {
  /** Options given with --plugin-option name.key=value for this plugin. */
  readonly options: Readonly<Record<string, string>>;
  registerScorer<P>(descriptor: ScorerDescriptor<P>): void;
  registerScorer(name: string, factory: ScorerFactory): void;
  registerAdmissionPolicy<P>(descriptor: AdmissionDescriptor<P>): void;
  registerAdmissionPolicy(name: string, factory: AdmissionFactory): void;
  registerPriorityPolicy<P>(descriptor: PriorityDescriptor<P>): void;
  registerPriorityPolicy(name: string, factory: PriorityFactory): void;
  registerScheduler<P>(descriptor: SchedulerDescriptor<P>): void;
  registerScheduler(name: string, factory: SchedulerFactory): void;
  registerRoutingPolicy<P>(descriptor: RoutingDescriptor<P>): void;
  registerRoutingPolicy(name: string, factory: RoutingFactory): void;
}

export interface PluginModule {
  name?: string;
  register(api: PluginApi): void | Promise<void>;
}

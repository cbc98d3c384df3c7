// Types for plugin authors. A plugin is an ES module exporting `register(api)` (or a default
// export with that function); it adds policies to the same registries the built-ins use.
import type { AdmissionFactory } from "../cluster/admission/admission.js";
import type { ScorerFactory } from "../cluster/scorers/scorer.js";
import type { PriorityFactory } from "../policy/priority.js";
import type { SchedulerFactory } from "../policy/scheduler.js";
import type { RoutingFactory } from "../cluster/routing/routing.js";

export type { AdmissionPolicy, AdmissionContext, AdmissionFactory } from "../cluster/admission/admission.js";
export type { Scorer, ScorerFactory } from "../cluster/scorers/scorer.js";
export type { PriorityPolicy, PriorityContext, PriorityFactory } from "../policy/priority.js";
export type { Scheduler, SchedulerFactory } from "../policy/scheduler.js";
export type { RoutingPolicy, RoutingContext, RoutingFactory } from "../cluster/routing/routing.js";
export type { RouterState, InstanceSnapshot } from "../cluster/snapshot.js";
export type { Request } from "../core/request.js";

export interface PluginApi {
  /** Options given with --plugin-option name.key=value for this plugin. */
  readonly options: Readonly<Record<string, string>>;
  registerScorer(name: string, factory: ScorerFactory): void;
  registerAdmissionPolicy(name: string, factory: AdmissionFactory): void;
  registerPriorityPolicy(name: string, factory: PriorityFactory): void;
  registerScheduler(name: string, factory: SchedulerFactory): void;
  registerRoutingPolicy(name: string, factory: RoutingFactory): void;
}

export interface PluginModule {
  name?: string;
  register(api: PluginApi): void | Promise<void>;
}

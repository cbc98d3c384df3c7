// The one way to hook into the cluster loop (docs/architecture.md "Cluster extensions"): prefill/
// decode disaggregation, the gateway control plane, the autoscaler and LoRA each attach as an
// extension that declares the cluster-event ranks it owns and what it does to the loop, and reach
// the cluster only through the port it is given.

import type { Instance } from "../instance/instance.js";
import type { InstanceConfig } from "../instance/instanceConfig.js";
import type { Request } from "../core/request.js";
import type { AdmissionDecision, AdmissionPolicy } from "./admission/admission.js";
import type { RouterState } from "./snapshot.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import type { KvCache } from "../kv/kvCache.js";
import type { LatencyModel } from "../latency/model.js";

/**
 * What an extension does to the loop:
 * - `routes`: replaces every routing decision (exclusive);
 * - `admits`: wraps admission and sees arrivals and routed requests (exclusive);
 * - `timed`: runs control events of its own timeline beside the request events (exclusive: the
 *   loop merges one such timeline);
 * - `evicts`: may take a routed request off its instance (the port's `evictFromInstance`);
 * - `instances`: contributes a part of every instance's configuration;
 * - `instance-triggered`: instance events can schedule its cluster events, so an instance runs its
 *   events in a row only until the next event of any other instance;
 * - `fleet`: changes which instances there are and which are routable (the port's `addInstance`,
 *   `setRoutable` and `redirectWaiting`; exclusive: one extension owns the instances' lifecycle).
 */
export type Capability = "routes" | "admits" | "timed" | "evicts" | "instances" | "instance-triggered" | "fleet";

/** Capabilities at most one attached extension may declare. */
export const EXCLUSIVE_CAPABILITIES: readonly Capability[] = ["routes", "admits", "timed", "fleet"];

/** A closed range of cluster-event ranks (at equal times lower ranks run first). */
export interface RankRange {
  readonly first: number;
  readonly last: number;
}

/** A feature that cannot run with `with`; `message` is the user-facing refusal. */
export interface Incompatibility {
  readonly with: string;
  readonly message: string;
}

/** A feature of a run, as the compatibility check sees it (src/cluster/compatibility.ts). */
export interface FeatureDescriptor {
  readonly name: string;
  /** Features this one cannot run with, checked in this order. */
  readonly incompatible?: readonly Incompatibility[];
}

/** What an extension declares before it is attached. */
export interface ExtensionDescriptor extends FeatureDescriptor {
  /** The cluster-event ranks it owns (disjoint from admission 1, routing 2 and other extensions). */
  readonly ranks: RankRange | null;
  readonly capabilities: readonly Capability[];
}

/** What the cluster offers an extension. */
export interface ClusterPort {
  readonly instances: readonly Instance[];
  readonly inFlight: Int32Array;
  readonly trace: DecisionTrace | null;
  /** The router state of a decision at `clock` about `req` (all candidate instances). */
  takeState(clock: number, req: Request): RouterState;
  /** A fresh router state over the routable instances (no model filter). */
  routerState(clock: number): RouterState;
  /** Queues one of the extension's own cluster events (a rank of its range). */
  schedule(time: number, rank: number, req: Request | null): void;
  /**
   * `admits` only: queues `req`'s routing decision, the routing latency after `clock` (a request the admitter held).
   */
  scheduleRouting(req: Request, clock: number): void;
  /**
   * Sends `req` to instance `target` as a routed request (in-flight + 1, registered, an Arrival at
   * `clock`); `userLevel` counts it among the routed user requests.
   */
  routeTo(req: Request, target: number, clock: number, userLevel: boolean): void;
  /** Counts a user request routed to `target` without injecting anything. */
  countRouted(target: number): void;
  /** Puts `req` straight into `target`'s wait queue at `clock` (registered; in-flight unchanged). */
  enqueueDirect(req: Request, target: number, clock: number): void;
  /** Adds `delta` to the router's in-flight count of instance i. */
  addInFlight(i: number, delta: number): void;
  /** Instance i's signals changed outside its own events (a KV reservation). */
  instanceChanged(i: number): void;
  /** Applies a routing priority hint and the priority bridge to `req`. */
  applyPriority(req: Request, hint: number): void;
  /** A request rejected at routing: no routable instance in a pool. */
  rejectAtRouting(): void;
  /** A fresh sequence number (sub-requests get their own ledger rows). */
  nextSeq(): number;
  /**
   * In-flight eviction (`evicts` only): the request leaves its instance without completion
   * metrics; false when it is not there (yet).
   */
  evictFromInstance(req: Request): boolean;
  /**
   * `fleet` only: adds a built instance at the next index (`instances.length`, within the cluster's
   * capacity); it is not routable until `setRoutable` says so.
   */
  addInstance(inst: Instance): void;
  /** `fleet` only: routable instances are the candidates of admission and routing. */
  setRoutable(i: number, routable: boolean): void;
  /**
   * `fleet` only: sends the requests waiting on instance i that never started back through routing
   * at `clock` (they keep their arrival time); returns how many moved.
   */
  redirectWaiting(i: number, clock: number): number;
}

/** An extension of the cluster loop; the methods its capabilities and ranks call for are required. */
export interface ClusterExtension {
  readonly descriptor: ExtensionDescriptor;
  attach(port: ClusterPort): void;
  /** One of its cluster events (a rank of its range). */
  onEvent?(rank: number, req: Request | null, clock: number): void;
  /** `routes`: the routing decision of `req` at `clock`. */
  route?(req: Request, clock: number): void;
  /** `admits`: an arrival, before its admission decision is queued. */
  onArrival?(req: Request): void;
  /** `admits`: the admission decision of `req` at `clock` (the policy decides what it leaves). */
  admit?(req: Request, clock: number, policy: AdmissionPolicy, state: RouterState): AdmissionDecision;
  /** `admits`: a request routed to an instance. */
  onRouted?(req: Request, instance: number, clock: number): void;
  /** `timed`: the time of its next control event (Infinity: none). */
  nextTime?(): number;
  /** `timed`: whether that event runs before the request events of its tick (else after them). */
  nextIsEarly?(): boolean;
  /**
   * `timed`: runs the next control event; `arrivalsPending` tells whether requests are still to come or in the
   * pipeline.
   */
  runNext?(arrivalsPending: boolean): void;
  /** `timed`: instance i ran events up to t. */
  afterInstanceEvents?(i: number, t: number): void;
  /** `instances`: its part of instance `index`'s configuration. */
  instanceConfig?(index: number, build: InstanceBuild): Partial<InstanceConfig>;
}

/** What an instance is being built with, as `instances` extensions see it. */
export interface InstanceBuild {
  readonly kv: KvCache;
  readonly latency: LatencyModel;
  /** False for a prefill-pool instance of a disaggregated run: it never decodes. */
  readonly decodes: boolean;
}

export type RankedExtension = ClusterExtension & Required<Pick<ClusterExtension, "onEvent">>;
export type RoutingExtension = ClusterExtension & Required<Pick<ClusterExtension, "route">>;
export type AdmittingExtension = ClusterExtension &
  Required<Pick<ClusterExtension, "onArrival" | "admit" | "onRouted">>;
export type TimedExtension = ClusterExtension &
  Required<Pick<ClusterExtension, "nextTime" | "nextIsEarly" | "runNext" | "afterInstanceEvents">>;
export type InstanceExtension = ClusterExtension & Required<Pick<ClusterExtension, "instanceConfig">>;

/** Whether `e` declares capability `c`. */
export function declares(e: ClusterExtension, c: Capability): boolean {
  return e.descriptor.capabilities.includes(c);
}

/** The merged instance configuration parts of the `instances` extensions for instance `index`. */
export function instanceParts(
  extensions: readonly ClusterExtension[],
  index: number,
  build: InstanceBuild,
): Partial<InstanceConfig> {
  let parts: Partial<InstanceConfig> = {};
  for (const e of extensions)
    if (e.instanceConfig !== undefined && declares(e, "instances"))
      parts = { ...parts, ...e.instanceConfig(index, build) };
  return parts;
}

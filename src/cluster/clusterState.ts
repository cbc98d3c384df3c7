// The cluster's state beside its loop (cluster.ts): in-flight counts, router snapshots, the queue
// of cluster events, the attached extensions and the operations that change them, which the loop
// and the extensions' ports use.

import type { Instance } from "../instance/instance.js";
import type { Request } from "../core/request.js";
import type { RequestLedger } from "../core/ledger.js";
import { SnapshotProvider } from "./snapshot.js";
import { EventQueue } from "../engine/eventQueue.js";
import { IndexHeap } from "../engine/indexHeap.js";
import type { OrderedLogger } from "./orderedLog.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import { baseScore, tierOf, type SloParams } from "../policy/sloTiers.js";
import { InvariantError } from "../util/errors.js";
import {
  declares,
  type AdmittingExtension,
  type ClusterExtension,
  type ClusterPort,
  type RankedExtension,
  type RoutingExtension,
  type TimedExtension,
} from "./extension.js";
import { ExtensionTable } from "./extensionTable.js";

export interface ClusterOptions {
  horizon: number;
  admissionLatency: number;
  routingLatency: number;
  snapshotRefreshInterval: number;
  blockSize: number;
  priorityBridge: "none" | "hint" | "floor";
  slo: SloParams;
  trace: DecisionTrace | null;
  /** The model every instance serves (lower-cased --model); absent: instances serve any model. */
  model?: string;
  /** The instances' logger, when it can hold lines while an instance runs several events in a row. */
  instanceLog?: OrderedLogger;
  /** --cache-signal-delay when PD pool policies or deciders read the instance caches. */
  cacheSignalDelay?: number;
  /** Most instances the run can hold, added ones included (autoscaling); default: the initial count. */
  capacity?: number;
}

/** Observer for cluster-level invariant checks in tests. */
export interface ClusterObserver {
  onRouted(req: Request, instance: number, clock: number): void;
  onClock(clock: number): void;
}

export const RANK_ADMISSION = 1;
export const RANK_ROUTING = 2;

/** The cluster's state and the operations on it; the loop is ClusterSimulator. */
export class ClusterState {
  readonly inFlight: Int32Array;
  protected readonly snapshots: SnapshotProvider;
  /**
   * Admission and routing decisions and the extensions' events, keyed by (time, rank, sequence).
   * Arrivals come straight from the ordered request stream and precede these at equal times (rank 0).
   */
  protected readonly events = new EventQueue<Request>();
  /** Instances by their next event time (lowest index first on ties), updated as their queues change. */
  protected readonly nextInstance: IndexHeap;
  observer: ClusterObserver | null = null;
  protected seq = 0;
  protected routingRejected = 0;
  protected routed = 0;
  protected readonly routedPerInstance: Int32Array;
  private readonly extensions = new ExtensionTable();
  /** The extension owning each cluster-event rank above routing (null: none). */
  protected readonly rankOwner: (RankedExtension | null)[] = this.extensions.byRank;
  protected router: RoutingExtension | null = null; // replaces routing decisions (PD)
  protected admitter: AdmittingExtension | null = null; // first at admission (the gateway control plane)
  /**
   * Control events beside the request pipeline (the autoscaler): early ones before the request events of their tick.
   */
  protected timed: TimedExtension | null = null;
  protected instanceTriggered = false; // instance events can create cluster events (PD's KV transfers)

  constructor(
    protected readonly instances: Instance[],
    protected readonly ledger: RequestLedger,
    protected readonly opts: ClusterOptions,
    routingCacheSignalDelay: number | undefined,
  ) {
    const capacity = Math.max(instances.length, opts.capacity ?? 0);
    this.inFlight = new Int32Array(capacity);
    this.routedPerInstance = new Int32Array(capacity);
    this.nextInstance = new IndexHeap(capacity);
    this.snapshots = new SnapshotProvider(instances, this.inFlight, opts.snapshotRefreshInterval, {
      model: opts.model ?? null,
      cacheSignalDelay: opts.cacheSignalDelay ?? routingCacheSignalDelay ?? null,
    });
    this.snapshots.trackChanges();
    for (const inst of instances) inst.horizon = opts.horizon;
  }

  /**
   * Attaches an extension (docs/architecture.md "Cluster extensions") once its declarations agree
   * with the attached ones', and hands it its port.
   */
  attach(ext: ClusterExtension): void {
    const t = this.extensions;
    t.add(ext);
    this.router = t.router;
    this.admitter = t.admitter;
    this.timed = t.timed;
    this.instanceTriggered = t.instanceTriggered;
    ext.attach(this.portFor(ext));
  }

  /** The operations `ext` may use: its own ranks only; dispatch to routing and eviction only when it declares them. */
  private portFor(ext: ClusterExtension): ClusterPort {
    const { name, ranks } = ext.descriptor;
    const first = ranks?.first ?? Infinity;
    const last = ranks?.last ?? -Infinity;
    const evicts = declares(ext, "evicts");
    const admits = declares(ext, "admits"); // an admitter that queues a request dispatches it to routing later
    return {
      instances: this.instances,
      inFlight: this.inFlight,
      trace: this.opts.trace,
      takeState: (clock, req) => this.snapshots.take(clock, req),
      routerState: (clock) => this.snapshots.take(clock),
      schedule: (time, rank, req) => {
        if (rank < first || rank > last)
          throw new InvariantError(`cluster extension "${name}" scheduled rank ${rank} outside its ranks`);
        this.events.push(time, rank, req);
      },
      scheduleRouting: (req, clock) => {
        if (!admits)
          throw new InvariantError(`cluster extension "${name}" dispatches to routing without declaring "admits"`);
        this.events.push(clock + this.opts.routingLatency, RANK_ROUTING, req);
      },
      routeTo: (req, target, clock, userLevel) => this.inject(req, target, clock, userLevel),
      countRouted: (target) => this.countRouted(target),
      enqueueDirect: (req, target, clock) => this.enqueueDirect(req, target, clock),
      addInFlight: (i, delta) => {
        this.inFlight[i] = this.inFlight[i]! + delta;
        this.snapshots.inFlightChanged(i);
      },
      instanceChanged: (i) => this.snapshots.instanceChanged(i),
      applyPriority: (req, hint) => this.applyPriority(req, hint),
      rejectAtRouting: () => this.routingRejected++,
      nextSeq: () => this.seq++,
      evictFromInstance: (req) => {
        if (!evicts) throw new InvariantError(`cluster extension "${name}" evicts without declaring "evicts"`);
        return this.evictFromInstance(req);
      },
      ...this.fleetOps(ext),
    };
  }

  /** The port's fleet operations: for an extension that declares "fleet", refusals otherwise. */
  private fleetOps(ext: ClusterExtension): Pick<ClusterPort, "addInstance" | "setRoutable" | "redirectWaiting"> {
    const name = ext.descriptor.name;
    const check = (): void => {
      if (!declares(ext, "fleet"))
        throw new InvariantError(`cluster extension "${name}" changes the fleet without declaring "fleet"`);
    };
    return {
      addInstance: (inst) => {
        check();
        this.addInstance(inst);
      },
      setRoutable: (i, routable) => {
        check();
        this.snapshots.setRoutable(i, routable);
      },
      redirectWaiting: (i, clock) => {
        check();
        return this.redirectWaiting(i, clock);
      },
    };
  }

  /** Adds an instance at the next free index; it is routable once `setRoutable` says so. */
  private addInstance(inst: Instance): void {
    const i = this.instances.length;
    if (inst.index !== i || i >= this.inFlight.length)
      throw new InvariantError(`instance ${inst.id} cannot take index ${i}`);
    inst.horizon = this.opts.horizon;
    this.instances.push(inst);
    this.snapshots.addInstance(inst, false);
  }

  /**
   * Sends the requests waiting on instance i that never started back through routing at `clock`
   * (the redirect drain policy); they keep their arrival time. Returns how many moved.
   */
  private redirectWaiting(i: number, clock: number): number {
    const inst = this.instances[i]!;
    const keep: Request[] = [];
    let moved = 0;
    for (const req of inst.waitQueue.toArray()) {
      if (req.schedDelay >= 0 || req.computed > 0) {
        keep.push(req);
        continue;
      }
      inst.totalInputTokens -= req.inputLen;
      this.inFlight[i]!--;
      this.routedPerInstance[i]!--;
      this.routed--;
      this.events.push(clock, RANK_ROUTING, req);
      moved++;
    }
    if (moved === 0) return 0;
    inst.waitQueue.assign(keep);
    this.snapshots.inFlightChanged(i);
    this.snapshots.instanceChanged(i);
    return moved;
  }

  /** Instance i's next event time changed outside the loop (an injection by the control). */
  rescheduled(i: number): void {
    this.nextInstance.update(i, this.instances[i]!.nextEventTime());
  }

  /** Puts `req` straight into `target`'s wait queue at `clock` (registered; in-flight unchanged). */
  private enqueueDirect(req: Request, target: number, clock: number): void {
    req.instance = target;
    this.ledger.register(req);
    const inst = this.instances[target]!;
    inst.enqueueDirect(req, clock);
    this.nextInstance.update(target, inst.nextEventTime());
    this.snapshots.instanceChanged(target);
    if (this.observer !== null) this.observer.onRouted(req, target, clock);
  }

  /** In-flight eviction: the request leaves its instance without completion metrics. */
  private evictFromInstance(req: Request): boolean {
    const i = req.instance;
    if (!(this.instances[i]?.evict(req) ?? false)) return false;
    this.inFlight[i] = Math.max(0, this.inFlight[i]! - 1);
    this.snapshots.inFlightChanged(i);
    this.snapshots.instanceChanged(i);
    this.rescheduled(i);
    return true;
  }

  protected applyPriority(req: Request, routingHint: number): void {
    let hint = routingHint;
    if (this.opts.priorityBridge !== "none") hint = baseScore(this.opts.slo, tierOf(req.sloClass));
    if (hint !== 0) {
      req.priority = hint;
      if (this.opts.priorityBridge === "floor") req.priorityFloor = hint;
    }
  }

  protected inject(req: Request, target: number, clock: number, userLevel: boolean): void {
    this.inFlight[target]!++;
    this.snapshots.inFlightChanged(target);
    if (userLevel) this.countRouted(target);
    req.instance = target;
    this.ledger.register(req);
    const inst = this.instances[target]!;
    inst.inject(req, clock);
    this.nextInstance.update(target, inst.nextEventTime());
    if (this.observer !== null) this.observer.onRouted(req, target, clock);
    this.admitter?.onRouted(req, target, clock);
  }

  protected countRouted(target: number): void {
    this.routed++;
    this.routedPerInstance[target]!++;
  }
}

import type { Instance } from "../instance/instance.js";
import { Request } from "../core/request.js";
import type { RequestLedger } from "../core/ledger.js";
import type { RequestSource, WorkloadRequest } from "../core/workloadRequest.js";
import type { Logger } from "../util/log.js";
import { decideAdmission, type AdmissionPolicy } from "./admission/admission.js";
import type { RoutingPolicy } from "./routing/routing.js";
import { SnapshotProvider, type RouterState } from "./snapshot.js";
import { EventQueue } from "../engine/eventQueue.js";
import { IndexHeap } from "../engine/indexHeap.js";
import type { OrderedLogger } from "./orderedLog.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import { baseScore, tierOf, type SloParams } from "../policy/sloTiers.js";
import { InvariantError } from "../util/errors.js";
import type { StateSampler } from "../core/stateSampler.js";
import type { ControlPlane } from "../gateway/controlPlane.js";
import type { DisaggregationHook } from "./disaggregation.js";
import { inTransit, type ClusterRunStats } from "./runStats.js";

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

/**
 * Events beside the request pipeline (autoscaling, src/autoscale/): lifecycle events run before
 * the request events of their tick, ticks and actuations after them; both before instance events.
 */
export interface ClusterControl {
  nextTime(): number;
  nextIsEarly(): boolean;
  /** Runs the next control event; `arrivalsPending` tells whether requests are still to come or in the pipeline. */
  runNext(arrivalsPending: boolean): void;
  /** Instance i ran events up to t (termination checks of draining instances). */
  afterInstanceEvents(i: number, t: number): void;
}

/** Observer for cluster-level invariant checks in tests. */
export interface ClusterObserver {
  onRouted(req: Request, instance: number, clock: number): void;
  onClock(clock: number): void;
}

export type { ClusterRunStats } from "./runStats.js";

const RANK_ADMISSION = 1;
export const RANK_ROUTING = 2;

/**
 * The shared-clock loop over the cluster pipeline and all instances (docs/behavior.md
 * "Event loop and same-tick ordering"): at equal timestamps cluster events run before instance
 * events; instances by index.
 */
export class ClusterSimulator {
  readonly inFlight: Int32Array;
  protected readonly snapshots: SnapshotProvider;
  /**
   * Admission and routing decisions keyed by (time, rank, sequence). Arrivals come straight from
   * the ordered request stream and precede these at equal times (rank 0).
   */
  protected readonly events = new EventQueue<Request>();
  /** Instances by their next event time (lowest index first on ties), updated as their queues change. */
  protected readonly nextInstance: IndexHeap;
  observer: ClusterObserver | null = null;
  /** Optional fixed-grid sampler of instance state (reports). */
  recorder: StateSampler | null = null;
  protected seq = 0;
  private rejected = 0;
  protected routingRejected = 0;
  private routed = 0;
  private readonly routedPerInstance: Int32Array;
  /** Closed-loop follow-ups created during the run, by arrival; after the source at equal times. */
  private readonly pushed = new EventQueue<WorkloadRequest>();
  private runLimit = -Infinity; // the `limit` of the instance events being run (runInstance)
  /** Prefill/decode disaggregation (null: off). */
  protected pd: DisaggregationHook | null = null;
  control: ClusterControl | null = null;
  controlPlane: ControlPlane | null = null; // tenant budgets, the gateway queue, goodput arrivals (src/gateway/); first at admission

  constructor(
    protected readonly instances: Instance[],
    private readonly admission: AdmissionPolicy,
    private readonly routing: RoutingPolicy,
    private readonly source: RequestSource,
    protected readonly ledger: RequestLedger,
    protected readonly opts: ClusterOptions,
    private readonly log: Logger,
  ) {
    const capacity = Math.max(instances.length, opts.capacity ?? 0);
    this.inFlight = new Int32Array(capacity);
    this.routedPerInstance = new Int32Array(capacity);
    this.nextInstance = new IndexHeap(capacity);
    this.snapshots = new SnapshotProvider(instances, this.inFlight, opts.snapshotRefreshInterval, {
      model: opts.model ?? null,
      cacheSignalDelay: opts.cacheSignalDelay ?? routing.cacheSignalDelay ?? null,
    });
    this.snapshots.trackChanges();
    for (const inst of instances) inst.horizon = opts.horizon;
  }

  run(): ClusterRunStats {
    const instances = this.instances;
    const byTime = this.nextInstance;
    for (let i = 0; i < instances.length; i++) byTime.update(i, instances[i]!.nextEventTime());
    const horizon = this.opts.horizon;
    const debug = this.log.enabled("debug");
    const instanceLog = this.opts.instanceLog;
    if (instanceLog !== undefined && this.observer === null && !debug) instanceLog.hold();
    let next: WorkloadRequest | null = this.source.next();
    let clock = 0;
    let arrived = 0;

    for (;;) {
      let tArr = next !== null ? next.arrival : Infinity;
      const fromPushed = this.pushed.size > 0 && this.pushed.peekTime() < tArr;
      if (fromPushed) tArr = this.pushed.peekTime();
      const tHeap = this.events.peekTime();
      let tc = tArr <= tHeap ? tArr : tHeap;
      const ctl = this.control !== null && this.controlDue(tc);
      if (ctl) tc = this.control!.nextTime();
      const te = byTime.topKey();
      const chosen = byTime.top();
      if (tc === Infinity && te === Infinity) break;
      if (this.recorder !== null) this.sampleUntil(tc <= te ? tc : te, horizon);
      if (tc <= te) {
        instanceLog?.flush();
        clock = tc;
        if (clock > horizon) break;
        if (this.observer !== null) this.observer.onClock(clock);
        if (ctl) this.control!.runNext(next !== null || this.pushed.size > 0 || this.events.size > 0);
        else if (tArr <= tHeap) {
          if (fromPushed) {
            this.arrive(this.pushed.peekPayload()!, clock, debug);
            this.pushed.pop();
          } else {
            this.arrive(next!, clock, debug);
            next = this.source.next();
          }
          arrived++;
        } else {
          this.runClusterEvent(clock, debug);
        }
      } else {
        if (te > horizon) {
          clock = te;
          break;
        }
        if (this.observer !== null) this.observer.onClock(te);
        // Until the next cluster event or time-series sample, instances do not affect each other:
        // run this one's events back to back while its data is in cache. Each instance still
        // sees its own events in order; only the interleaving across instances (and so the order
        // of their log lines) differs. Observers and debug logs get the one-event-at-a-time order.
        let limit = te;
        if (this.observer === null && !debug && instanceLog !== undefined) {
          limit = tc;
          if (this.recorder !== null && this.recorder.next < limit) limit = this.recorder.next;
          // PD: another instance's event can create a cluster event (a KV transfer) at its own time.
          if (this.pd !== null && byTime.secondKey() < limit) limit = byTime.secondKey();
        }
        const last = this.runInstance(chosen, limit, horizon);
        if (last > clock) clock = last;
      }
    }

    instanceLog?.release();
    // Requests the loop never reached still count as generated.
    const generated = arrived + this.pushed.size + this.drain(next);
    return {
      rejected: this.rejected,
      routingRejected: this.routingRejected,
      arrived,
      routed: this.routed,
      routedPerInstance: this.routedPerInstance,
      generated,
      inTransit: inTransit(this.events, [RANK_ADMISSION, RANK_ROUTING], this.instances),
      clock,
      inFlight: this.inFlight,
    };
  }

  /** Pops and runs the next queued cluster event: admission, routing, a PD event or a gateway event. */
  private runClusterEvent(clock: number, debug: boolean): void {
    const req = this.events.peekPayload();
    const rank = this.events.peekKind();
    this.events.pop();
    if (rank === RANK_ADMISSION) this.admit(req!, clock, debug);
    else if (rank === RANK_ROUTING) this.route(req!, clock, debug);
    else if (this.pd !== null) this.pd.onEvent(rank, req!, clock);
    else this.controlPlane!.onEvent(rank, req, clock); // flow control (never with PD: their ranks overlap)
  }

  /**
   * Runs instance i's next event, then its later events while they come before `limit` and are
   * within the horizon. Returns the time of the last event run.
   */
  private runInstance(i: number, limit: number, horizon: number): number {
    const inst = this.instances[i]!;
    let t = inst.nextEventTime();
    let last = t;
    const log = this.opts.instanceLog;
    this.runLimit = limit;
    do {
      last = t;
      log?.at(t, i);
      const before = inst.completed + inst.droppedUnservable + inst.timedOut;
      inst.processNext(this.steadyUntil);
      if (inst.clock > last) last = inst.clock;
      const delta = inst.completed + inst.droppedUnservable + inst.timedOut - before;
      if (delta !== 0) {
        let v = this.inFlight[i]! - delta;
        if (v < 0) {
          (log ?? this.log).warn(`in-flight count for ${inst.id} went negative (${v}); bookkeeping bug`);
          v = 0;
        }
        this.inFlight[i] = v;
        this.snapshots.inFlightChanged(i);
      }
      t = inst.nextEventTime();
      // A follow-up created by a completion is a cluster event: it runs before later instance events.
      // So is a PD event an instance event created (a prefill completion's KV transfer).
    } while (t < limit && t <= horizon && !(this.pushed.size > 0 && this.pushed.peekTime() <= t) && t < this.events.peekTime());
    this.nextInstance.update(i, t);
    this.snapshots.instanceChanged(i);
    if (this.control !== null) this.control.afterInstanceEvents(i, last);
    return last;
  }

  /** Steady steps (instance/steadySteps.ts) start before the events runInstance stops at. */
  private readonly steadyUntil = (): number => {
    let until = this.runLimit < this.events.peekTime() ? this.runLimit : this.events.peekTime();
    if (this.pushed.size > 0 && this.pushed.peekTime() < until) until = this.pushed.peekTime();
    return until;
  };

  /** Time-series samples due before the next event at `tn`. */
  private sampleUntil(tn: number, horizon: number): void {
    if (tn >= this.recorder!.next && tn <= horizon) this.recorder!.sampleUntil(tn);
  }

  /** Whether the next control event comes before the request event at `tc`. */
  private controlDue(tc: number): boolean {
    const t = this.control!.nextTime();
    return t < tc || (t === tc && t !== Infinity && this.control!.nextIsEarly());
  }

  /** Adds an instance (autoscaling) at the next free index; it is routable once `setRoutable` says so. */
  addInstance(inst: Instance, routable: boolean): void {
    const i = this.instances.length;
    if (inst.index !== i || i >= this.inFlight.length) throw new InvariantError(`instance ${inst.id} cannot take index ${i}`);
    inst.horizon = this.opts.horizon;
    this.instances.push(inst);
    this.snapshots.addInstance(inst, routable);
  }

  /** Routable instances are the candidates of admission and routing. */
  setRoutable(i: number, routable: boolean): void {
    this.snapshots.setRoutable(i, routable);
  }

  /** Router state over the routable instances (the autoscaler's collector). */
  routerState(clock: number): RouterState {
    return this.snapshots.take(clock);
  }

  /**
   * Sends the requests waiting on instance i that never started back through routing at `clock`
   * (the redirect drain policy); they keep their arrival time. Returns how many moved.
   */
  redirectWaiting(i: number, clock: number): number {
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

  /** How many requests are left in the source, `next` included. */
  private drain(next: WorkloadRequest | null): number {
    let n = 0;
    for (; next !== null; next = this.source.next()) n++;
    return n;
  }

  private arrive(w: WorkloadRequest, clock: number, debug: boolean): void {
    const req = new Request(w, this.seq++, this.opts.blockSize);
    if (debug) this.log.debug(`t=${clock} arrival ${req.id}`);
    this.controlPlane?.onArrival(req);
    this.events.push(clock + this.opts.admissionLatency, RANK_ADMISSION, req);
  }

  /**
   * A request created during the run (a closed-loop follow-up), arriving at or after the current
   * clock; it goes through admission and routing like any arrival.
   */
  pushArrival(w: WorkloadRequest): void {
    this.pushed.push(w.arrival, 0, w);
  }

  private admit(req: Request, clock: number, debug: boolean): void {
    const state = this.snapshots.take(clock, req);
    const d = this.controlPlane?.admit(req, clock, this.admission, state) ?? decideAdmission(this.admission, req, state);
    if (this.opts.trace !== null) this.opts.trace.recordAdmission(req.id, clock, d.admitted, d.reason);
    if (debug) this.log.debug(`t=${clock} admission ${req.id}: ${d.admitted ? "admitted" : "rejected"} ${d.reason}`);
    if (!d.admitted) {
      this.rejected++;
      req.dropPayload();
      return;
    }
    if (!d.queued) this.events.push(clock + this.opts.routingLatency, RANK_ROUTING, req);
  }

  private route(req: Request, clock: number, debug: boolean): void {
    if (this.pd !== null) {
      this.pd.route(req, clock);
      return;
    }
    const state = this.snapshots.take(clock, req);
    if (state.snapshots.length === 0) {
      this.log.warn(`no routable instance serves model "${req.model}" — request ${req.id} rejected at routing`);
      this.routingRejected++;
      req.dropPayload();
      return;
    }
    const d = this.routing.route(req, state);
    const pos = d.target;
    if (!(pos >= 0 && pos < state.snapshots.length) || !Number.isInteger(pos)) {
      throw new InvariantError(`routing policy "${this.routing.name}" chose an unknown instance (${pos})`);
    }
    const target = state.snapshots[pos]!.index;
    this.applyPriority(req, d.priorityHint);
    req.instance = target;
    if (this.opts.trace !== null) {
      this.opts.trace.recordRouting(req.id, clock, pos, d.reason, d.scores, state.snapshots);
    }
    if (debug) this.log.debug(`t=${clock} routing ${req.id} -> instance_${target}: ${d.reason}`);
    this.inject(req, target, clock, true);
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
    this.controlPlane?.onRouted(req, target, clock);
  }

  protected countRouted(target: number): void {
    this.routed++;
    this.routedPerInstance[target]!++;
  }
}

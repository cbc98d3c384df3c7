import type { Instance } from "../instance/instance.js";
import { Request } from "../core/request.js";
import type { RequestLedger } from "../core/ledger.js";
import type { RequestSource, WorkloadRequest } from "../core/workloadRequest.js";
import type { Logger } from "../util/log.js";
import { decideAdmission, type AdmissionPolicy } from "./admission/admission.js";
import type { RoutingPolicy } from "./routing/routing.js";
import { EventQueue } from "../engine/eventQueue.js";
import { InvariantError } from "../util/errors.js";
import type { StateSampler } from "../core/stateSampler.js";
import { ClusterState, RANK_ADMISSION, RANK_ROUTING, type ClusterOptions } from "./clusterState.js";
import { inTransit, type ClusterRunStats } from "./runStats.js";

export type { ClusterRunStats } from "./runStats.js";
export { RANK_ROUTING, type ClusterObserver, type ClusterOptions } from "./clusterState.js";

/**
 * The shared-clock loop over the cluster pipeline and all instances (docs/behavior.md
 * "Event loop and same-tick ordering"): at equal timestamps cluster events run before instance
 * events; instances by index.
 */
export class ClusterSimulator extends ClusterState {
  /** Optional fixed-grid sampler of instance state (reports). */
  recorder: StateSampler | null = null;
  private rejected = 0;
  /** Closed-loop follow-ups created during the run, by arrival; after the source at equal times. */
  private readonly pushed = new EventQueue<WorkloadRequest>();
  private runLimit = -Infinity; // the `limit` of the instance events being run (runInstance)

  constructor(
    instances: Instance[],
    private readonly admission: AdmissionPolicy,
    private readonly routing: RoutingPolicy,
    private readonly source: RequestSource,
    ledger: RequestLedger,
    opts: ClusterOptions,
    private readonly log: Logger,
  ) {
    super(instances, ledger, opts, routing.cacheSignalDelay);
  }

  // The hot loop: one pass picks the earliest of five event sources; splitting it would add calls
  // per event (docs/architecture.md "The event loop").
  // eslint-disable-next-line complexity -- see above
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
      const ctl = this.timed !== null && this.controlDue(tc);
      if (ctl) tc = this.timed!.nextTime();
      const te = byTime.topKey();
      const chosen = byTime.top();
      if (tc === Infinity && te === Infinity) break;
      if (this.recorder !== null) this.sampleUntil(tc <= te ? tc : te, horizon);
      if (tc <= te) {
        instanceLog?.flush();
        clock = tc;
        if (clock > horizon) break;
        if (this.observer !== null) this.observer.onClock(clock);
        if (ctl) this.timed!.runNext(next !== null || this.pushed.size > 0 || this.events.size > 0);
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
          if (this.instanceTriggered && byTime.secondKey() < limit) limit = byTime.secondKey();
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

  /** Pops and runs the next queued cluster event: admission, routing, or an extension's event. */
  private runClusterEvent(clock: number, debug: boolean): void {
    const req = this.events.peekPayload();
    const rank = this.events.peekKind();
    this.events.pop();
    if (rank === RANK_ADMISSION) this.admit(req!, clock, debug);
    else if (rank === RANK_ROUTING) this.route(req!, clock, debug);
    else {
      const owner = this.rankOwner[rank];
      if (owner === null || owner === undefined)
        throw new InvariantError(`no cluster extension owns event rank ${rank}`);
      owner.onEvent(rank, req, clock);
    }
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
    } while (
      t < limit &&
      t <= horizon &&
      !(this.pushed.size > 0 && this.pushed.peekTime() <= t) &&
      t < this.events.peekTime()
    );
    this.nextInstance.update(i, t);
    this.snapshots.instanceChanged(i);
    if (this.timed !== null) this.timed.afterInstanceEvents(i, last);
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
    const t = this.timed!.nextTime();
    return t < tc || (t === tc && t !== Infinity && this.timed!.nextIsEarly());
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
    this.admitter?.onArrival(req);
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
    const d = this.admitter?.admit(req, clock, this.admission, state) ?? decideAdmission(this.admission, req, state);
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
    if (this.router !== null) {
      this.router.route(req, clock);
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
}

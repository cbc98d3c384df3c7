import type { Instance } from "../instance/instance.js";
import { Request } from "../core/request.js";
import type { RequestLedger } from "../core/ledger.js";
import type { RequestSource, WorkloadRequest } from "../core/workloadRequest.js";
import type { Logger } from "../util/log.js";
import type { AdmissionPolicy } from "./admission/admission.js";
import type { RoutingPolicy } from "./routing/routing.js";
import { SnapshotProvider } from "./snapshot.js";
import { EventQueue } from "../engine/eventQueue.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import { baseScore, tierOf, type SloParams } from "../policy/sloTiers.js";
import { InvariantError } from "../util/errors.js";
import type { StateSampler } from "../core/stateSampler.js";

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
}

/** Observer for cluster-level invariant checks in tests. */
export interface ClusterObserver {
  onRouted(req: Request, instance: number, clock: number): void;
  onClock(clock: number): void;
}

export interface ClusterRunStats {
  rejected: number;
  /** Requests dropped at routing because no routable instance serves their model. */
  routingRejected: number;
  /** Requests pulled from the workload whose arrival was processed (≤ horizon). */
  arrived: number;
  routed: number;
  /** Routed requests per instance. */
  routedPerInstance: Int32Array;
  /** Requests generated in total (including those beyond the horizon that were never processed). */
  generated: number;
  clock: number;
  inFlight: Int32Array;
}

const RANK_ADMISSION = 1;
const RANK_ROUTING = 2;

/**
 * The shared-clock loop over the cluster pipeline and all instances (docs/behavior.md
 * "Event loop and same-tick ordering"): at equal timestamps cluster events run before instance
 * events; instances by index.
 */
export class ClusterSimulator {
  readonly inFlight: Int32Array;
  private readonly snapshots: SnapshotProvider;
  /**
   * Admission and routing decisions keyed by (time, rank, sequence). Arrivals come straight from
   * the ordered request stream and precede these at equal times (rank 0).
   */
  private readonly events = new EventQueue<Request>();
  observer: ClusterObserver | null = null;
  /** Optional fixed-grid sampler of instance state (reports). */
  recorder: StateSampler | null = null;
  private seq = 0;
  private rejected = 0;
  private routingRejected = 0;
  private routed = 0;
  private readonly routedPerInstance: Int32Array;
  /** Closed-loop follow-ups created during the run, by arrival; after the source at equal times. */
  private readonly pushed = new EventQueue<WorkloadRequest>();

  constructor(
    private readonly instances: Instance[],
    private readonly admission: AdmissionPolicy,
    private readonly routing: RoutingPolicy,
    private readonly source: RequestSource,
    private readonly ledger: RequestLedger,
    private readonly opts: ClusterOptions,
    private readonly log: Logger,
  ) {
    this.inFlight = new Int32Array(instances.length);
    this.routedPerInstance = new Int32Array(instances.length);
    this.snapshots = new SnapshotProvider(instances, this.inFlight, opts.snapshotRefreshInterval, {
      model: opts.model ?? null,
      cacheSignalDelay: routing.cacheSignalDelay ?? null,
    });
    for (const inst of instances) inst.horizon = opts.horizon;
  }

  run(): ClusterRunStats {
    const instances = this.instances;
    const nInst = instances.length;
    const horizon = this.opts.horizon;
    const debug = this.log.enabled("debug");
    let next: WorkloadRequest | null = this.source.next();
    let clock = 0;
    let arrived = 0;

    for (;;) {
      const tPush = this.pushed.peekTime();
      const tArr = next !== null && next.arrival <= tPush ? next.arrival : tPush;
      const tHeap = this.events.peekTime();
      const tc = tArr <= tHeap ? tArr : tHeap;
      let te = Infinity;
      let chosen = -1;
      for (let i = 0; i < nInst; i++) {
        const t = instances[i]!.nextEventTime();
        if (t < te) {
          te = t;
          chosen = i;
        }
      }
      if (tc === Infinity && te === Infinity) break;
      if (this.recorder !== null) {
        const tn = tc <= te ? tc : te;
        if (tn >= this.recorder.next && tn <= horizon) this.recorder.sampleUntil(tn);
      }
      if (tc <= te) {
        clock = tc;
        if (clock > horizon) break;
        if (this.observer !== null) this.observer.onClock(clock);
        if (tArr <= tHeap) {
          const w = next !== null && next.arrival === tArr ? next : this.takePushed();
          if (w === next) next = this.source.next();
          arrived++;
          const req = new Request(w, this.seq++, this.opts.blockSize);
          if (debug) this.log.debug(`t=${clock} arrival ${req.id}`);
          this.events.push(clock + this.opts.admissionLatency, RANK_ADMISSION, req);
        } else {
          const req = this.events.peekPayload()!;
          const rank = this.events.peekKind();
          this.events.pop();
          if (rank === RANK_ADMISSION) this.admit(req, clock, debug);
          else this.route(req, clock, debug);
        }
      } else {
        clock = te;
        if (clock > horizon) break;
        if (this.observer !== null) this.observer.onClock(clock);
        const inst = instances[chosen]!;
        const before = inst.completed + inst.droppedUnservable;
        inst.processNext();
        const delta = inst.completed + inst.droppedUnservable - before;
        if (delta !== 0) {
          let v = this.inFlight[chosen]! - delta;
          if (v < 0) {
            this.log.warn(`in-flight count for ${inst.id} went negative (${v}); bookkeeping bug`);
            v = 0;
          }
          this.inFlight[chosen] = v;
        }
      }
    }

    // Requests the loop never reached still count as generated.
    let generated = arrived + this.pushed.size;
    for (; next !== null; next = this.source.next()) generated++;
    return {
      rejected: this.rejected,
      routingRejected: this.routingRejected,
      arrived,
      routed: this.routed,
      routedPerInstance: this.routedPerInstance,
      generated,
      clock,
      inFlight: this.inFlight,
    };
  }

  /**
   * A request created during the run (a closed-loop follow-up), arriving at or after the current
   * clock; it goes through admission and routing like any arrival.
   */
  pushArrival(w: WorkloadRequest): void {
    this.pushed.push(w.arrival, 0, w);
  }

  private takePushed(): WorkloadRequest {
    const w = this.pushed.peekPayload()!;
    this.pushed.pop();
    return w;
  }

  private admit(req: Request, clock: number, debug: boolean): void {
    const state = this.snapshots.take(clock, req);
    const ok = this.admission.admit(req, state);
    if (this.opts.trace !== null) this.opts.trace.recordAdmission(req.id, clock, ok, this.admission.reason);
    if (debug) this.log.debug(`t=${clock} admission ${req.id}: ${ok ? "admitted" : "rejected"} ${this.admission.reason}`);
    if (!ok) {
      this.rejected++;
      req.dropPayload();
      return;
    }
    this.events.push(clock + this.opts.routingLatency, RANK_ROUTING, req);
  }

  private route(req: Request, clock: number, debug: boolean): void {
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
    let hint = d.priorityHint;
    if (this.opts.priorityBridge !== "none") hint = baseScore(this.opts.slo, tierOf(req.sloClass));
    if (hint !== 0) {
      req.priority = hint;
      if (this.opts.priorityBridge === "floor") req.priorityFloor = hint;
    }
    req.instance = target;
    if (this.opts.trace !== null) {
      this.opts.trace.recordRouting(req.id, clock, pos, d.reason, d.scores, state.snapshots);
    }
    if (debug) this.log.debug(`t=${clock} routing ${req.id} -> instance_${target}: ${d.reason}`);
    this.inFlight[target]!++;
    this.routed++;
    this.routedPerInstance[target]!++;
    this.ledger.register(req);
    this.instances[target]!.inject(req, clock);
    if (this.observer !== null) this.observer.onRouted(req, target, clock);
  }
}

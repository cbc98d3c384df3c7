import type { Request } from "../core/request.js";
import type { RouterState } from "../cluster/snapshot.js";
import { InvariantError } from "../util/errors.js";
import type { SaturationDetector } from "./detectors.js";
import { isSheddable, tierName, type PriorityMap } from "./priorities.js";
import { BandedQueue, type QueueEntry } from "./queue.js";
import { EvictionTracker } from "./eviction.js";
import { ShedTally } from "./counters.js";
import { EventQueue } from "../engine/eventQueue.js";

/**
 * Cluster event ranks of the gateway: after admission 1 and routing 2 at the same tick, and after
 * PD's 4–6 (the two never run together, so the gateway's order against the rest is unchanged).
 */
export const RANK_EVICT = 7;
export const RANK_TTL = 8;
export const RANK_TICK = 9;

/** What the gateway needs of the cluster. */
export interface GatewayHost {
  schedule(t: number, rank: number, req: Request | null): void;
  /** A fresh router state over the routable instances (no model filter). */
  state(clock: number): RouterState;
  /** Sends a dispatched request on to routing. */
  dispatch(req: Request, clock: number): void;
  /** Removes a routed request from its instance; false when it is not there (yet). */
  evict(req: Request, clock: number): boolean;
  /** Whether a routed request is still on its instance (not completed, dropped or evicted). */
  alive(req: Request): boolean;
}

export interface GatewaySettings {
  priority: PriorityMap;
  detector: SaturationDetector;
  /** --usage-limit-threshold τ: band ceilings fall from 1 to τ. */
  usageLimit: number;
  roundRobin: boolean;
  byDeadline: boolean;
  /** Dispatch-deadline targets by class, µs (`slo-deadline`). */
  targets: ReadonlyMap<string, number>;
  maxDepth: number;
  perBand: number;
  shedding: boolean;
  ttl: number;
  tick: number;
  eviction: boolean;
}

export type EnqueueOutcome = "enqueued" | "shed-victim" | "rejected" | "timed-out";

/**
 * The flow-control queue between admission and routing (docs/gateway.md): bands by priority, a
 * FIFO per tenant in each band, capacity limits with rejection and shedding, gated dispatch, TTL
 * expiry, client deadlines and in-flight eviction. Every request it takes leaves it exactly once:
 * dispatched, rejected, shed, expired, timed out, or still queued at the end.
 */
export class Gateway {
  readonly queue = new BandedQueue();
  readonly shed: ShedTally;
  rejected = 0;
  shedVictims = 0;
  expired = 0;
  /** Requests whose client deadline passed while they waited (never dispatched). */
  timedOut = 0;
  evicted = 0;
  dispatched = 0;
  enqueued = 0;
  private seq = 0;
  private tickPending = false;
  /** Waiting entries by request sequence number (TTL expiry). */
  private readonly waiting = new Map<number, QueueEntry>();
  /** Waiting entries with a client deadline, by deadline (lazy: dispatched ones are skipped). */
  private readonly deadlines = new EventQueue<QueueEntry>();
  /** Gateway wait (dispatch − enqueue, ticks) of dispatched requests by sequence number. */
  readonly waits = new Map<number, number>();
  /**
   * The per-request record's `gateway_queue_delay_ms`, by sequence number: only when both times
   * are > 0, so a request admitted at t = 0 shows none (as in BLIS).
   */
  readonly recordDelaysMs = new Map<number, number>();
  readonly tracker = new EvictionTracker();

  constructor(
    private readonly host: GatewayHost,
    private readonly s: GatewaySettings,
    shed: ShedTally,
  ) {
    this.shed = shed;
  }

  /** Admission into the queue; a dispatch attempt follows unless the request was rejected. */
  enqueue(req: Request, clock: number): EnqueueOutcome {
    // A client deadline that passed during the admission delay: the request never waits.
    if (req.deadline > 0 && req.deadline <= clock) {
      this.timedOut++;
      return "timed-out";
    }
    const p = this.s.priority(req.sloClass);
    const q = this.queue;
    if (this.s.perBand > 0 && q.band(p).size >= this.s.perBand) {
      this.rejected++;
      return "rejected";
    }
    let outcome: EnqueueOutcome = "enqueued";
    if (this.s.maxDepth > 0 && q.size >= this.s.maxDepth) {
      const victim = this.s.shedding ? q.victim() : null;
      // A new arrival outranks only a strictly lower priority (its sequence number is the largest).
      if (victim === null || !(p > victim.priority)) {
        this.rejected++;
        return "rejected";
      }
      this.drop(victim);
      this.shedVictims++;
      this.shed.add(tierName(victim.req.sloClass));
      outcome = "shed-victim";
    }
    // A request's own target wins over its class's (docs/gateway.md "Dispatch").
    const target = req.sloTargetUs > 0 ? req.sloTargetUs : (this.s.targets.get(req.sloClass) ?? Infinity);
    const e: QueueEntry = {
      req,
      seq: ++this.seq,
      enqueued: clock,
      priority: p,
      deadline: clock + target,
      removed: false,
    };
    q.add(e);
    this.waiting.set(req.seq, e);
    this.enqueued++;
    if (req.deadline > 0) this.deadlines.push(req.deadline, 0, e);
    if (this.s.ttl > 0) this.host.schedule(clock + this.s.ttl, RANK_TTL, req);
    this.attempt(clock);
    return outcome;
  }

  /** A gateway event of the cluster queue. */
  onEvent(rank: number, req: Request | null, clock: number): void {
    if (rank === RANK_TICK) this.onTick(clock);
    else if (rank === RANK_TTL) this.onTtl(req!);
    else if (rank === RANK_EVICT) this.onEvict(req!, clock);
    else throw new InvariantError(`unknown gateway event rank ${rank}`);
  }

  /** A routed request: sheddable ones become candidates of in-flight eviction. */
  onRouted(req: Request, instance: number, dispatchedAt: number): void {
    const p = this.s.priority(req.sloClass);
    if (this.s.eviction && isSheddable(p)) this.tracker.add(req, p, dispatchedAt, instance);
  }

  private onTick(clock: number): void {
    if (this.queue.size > 0) this.attempt(clock);
    if (this.queue.size > 0) this.host.schedule(clock + this.s.tick, RANK_TICK, null);
    else this.tickPending = false;
  }

  private onTtl(req: Request): void {
    const e = this.waiting.get(req.seq);
    if (e === undefined) return;
    this.drop(e);
    this.expired++;
    this.shed.add(tierName(req.sloClass));
    req.dropPayload();
  }

  private onEvict(req: Request, clock: number): void {
    if (!this.host.evict(req, clock)) return;
    this.evicted++;
    this.shed.add(tierName(req.sloClass));
  }

  private drop(e: QueueEntry): void {
    this.queue.remove(e);
    this.waiting.delete(e.req.seq);
  }

  /** One dispatch attempt: at most one request leaves, or one in-flight request is evicted. */
  attempt(clock: number): void {
    if (this.deadlines.size > 0) this.expireDeadlines(clock);
    const q = this.queue;
    if (q.size === 0) return;
    if (!this.tickPending) {
      this.tickPending = true;
      this.host.schedule(clock + this.s.tick, RANK_TICK, null);
    }
    const s = this.s.detector.saturation(this.host.state(clock));
    if (!Number.isFinite(s)) throw new InvariantError(`saturation detector "${this.s.detector.name}" returned ${s}`);
    if (s >= 1 && this.s.eviction && this.urgentWaiting()) {
      const victim = this.tracker.pick((r) => this.host.alive(r));
      if (victim !== null) {
        this.host.schedule(clock, RANK_EVICT, victim);
        return;
      }
    }
    const bands = q.bands;
    const n = bands.length;
    const tau = this.s.usageLimit;
    for (let i = 0; i < n; i++) {
      const ceiling = n === 1 ? 1 : 1 - (i * (1 - tau)) / (n - 1);
      if (s >= ceiling) return;
      const e = q.takeFrom(bands[i]!, this.s.roundRobin, this.s.byDeadline);
      if (e === null) continue;
      this.waiting.delete(e.req.seq);
      this.dispatched++;
      this.waits.set(e.req.seq, clock - e.enqueued);
      if (e.enqueued > 0 && clock > 0) this.recordDelaysMs.set(e.req.seq, (clock - e.enqueued) / 1000);
      this.host.dispatch(e.req, clock);
      return;
    }
  }

  /**
   * Waiting requests whose client deadline is ≤ clock leave the queue (checked at every dispatch
   * attempt and tick, so none is dispatched after its deadline); they count once, in `timedOut`.
   */
  private expireDeadlines(clock: number): void {
    const d = this.deadlines;
    while (d.size > 0 && d.peekTime() <= clock) {
      const e = d.peekPayload()!;
      d.pop();
      if (this.waiting.get(e.req.seq) !== e) continue;
      this.drop(e);
      this.timedOut++;
      e.req.dropPayload();
    }
  }

  /** Whether a band of non-negative priority holds a request. */
  private urgentWaiting(): boolean {
    for (const b of this.queue.bands) if (b.priority >= 0 && b.size > 0) return true;
    return false;
  }

  /** Queue depth per band, highest priority first (time series). */
  depthByBand(): [number, number][] {
    return this.queue.bands.map((b) => [b.priority, b.size]);
  }
}

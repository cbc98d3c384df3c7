import { EventQueue, EV_ARRIVAL, EV_QUEUED, EV_STEP } from "../engine/eventQueue.js";
import type { LatencyModel } from "../latency/model.js";
import type { KvCache } from "../kv/kvCache.js";
import type { PriorityPolicy } from "../policy/priority.js";
import type { Scheduler } from "../policy/scheduler.js";
import type { RequestLedger } from "../core/ledger.js";
import type { Logger } from "../util/log.js";
import { BatchFormation } from "./batchFormation.js";
import { Deque } from "./deque.js";
import type { InstanceConfig } from "./instanceConfig.js";
import { PooledItl } from "./pooledItl.js";
import { Prioritizer } from "./prioritizer.js";
import { QUEUED, type Request } from "../core/request.js";
import { StepExecution } from "./stepExecution.js";
import type { StepProbe } from "./stepProbe.js";
import { UnservableTally, unservableCheck } from "./unservable.js";

export type { InstanceConfig } from "./instanceConfig.js";

/** Hooks for invariant checking in tests; null in production runs. */
export interface InstanceObserver {
  afterEvent(inst: Instance, time: number, kind: number): void;
  afterStep(inst: Instance): void;
}

/**
 * One vLLM-like inference instance (docs/behavior.md "The step"): its own event queue, wait queue,
 * running batch, KV cache and latency model. Runs its events and sequences each step; batch
 * formation, the execution pass and the pooled ITL live in their own classes.
 */
export class Instance {
  readonly events = new EventQueue<Request>();
  readonly waitQueue = new Deque<Request>(64);
  running: Request[] = [];
  clock = 0;
  /** Last RequestLeft time (those trace events are not queued; they only bound sim_ended). */
  lastLeave = 0;
  private stepChainRegistered = false;
  /** Step events currently queued (work-conservation checks). */
  pendingSteps = 0;

  // Counters (docs/behavior.md "The metrics block")
  completed = 0;
  droppedUnservable = 0;
  preemptionCount = 0;
  totalInputTokens = 0;
  totalOutputTokens = 0;
  kvAllocationFailures = 0;
  /** Requests dropped as unservable, by limit (the run reports them once). */
  readonly unservable = new UnservableTally();
  stepCount = 0;
  /** Duration of the most recent step, ticks (time-series sampling). */
  lastStepDuration = 0;
  queueSampleSum = 0;
  queueSampleCount = 0;

  /** Pooled ITL of the requests completed here. */
  readonly itl = new PooledItl();

  observer: InstanceObserver | null = null;
  probe: StepProbe | null = null;
  /**
   * Closed-loop hook: a request completed (t = end of its completion step) or was dropped at
   * enqueue (t = now). Called before its payload is released; null in open-loop runs.
   */
  onLeave: ((req: Request, t: number, dropped: boolean) => void) | null = null;
  horizon = Infinity;

  private readonly prioritizer: Prioritizer;
  private readonly formation: BatchFormation;
  private readonly execution: StepExecution;

  constructor(
    readonly index: number,
    readonly cfg: InstanceConfig,
    readonly kv: KvCache,
    readonly latency: LatencyModel,
    readonly priority: PriorityPolicy,
    readonly scheduler: Scheduler,
    readonly ledger: RequestLedger,
    readonly log: Logger,
  ) {
    this.prioritizer = new Prioritizer(priority, scheduler, cfg.priorityFloors);
    const current = latency.timeline === "current";
    this.formation = new BatchFormation(index, cfg, kv, this.waitQueue, log, current);
    this.execution = new StepExecution(this);
  }

  get id(): string {
    return `instance_${this.index}`;
  }

  nextEventTime(): number {
    return this.events.peekTime();
  }

  /**
   * Router injection at the routing time (docs/behavior.md "Routing and scorers", applying a
   * decision).
   */
  inject(req: Request, t: number): void {
    this.events.push(t, EV_ARRIVAL, req);
  }

  /**
   * PD: a decode sub-request whose KV transfer completed joins the wait queue at `now` directly (no
   * queueing delay, no unservable check, its input tokens counted on the prefill side), starting a
   * step chain when none is pending (docs/prefill-decode.md "Transfer completion"). It goes to the
   * head: it already holds its KV, and behind a prompt waiting for the blocks it holds it would
   * wait forever.
   */
  enqueueDirect(req: Request, now: number): void {
    req.state = QUEUED;
    this.prioritizer.onQueued(req, now);
    this.waitQueue.pushFront(req);
    if (req.remoteKv) this.formation.remoteWaiting++;
    if (!this.stepChainRegistered && this.pendingSteps === 0) {
      this.pushStep(now > this.clock ? now : this.clock);
      this.stepChainRegistered = true;
    }
  }

  /** Pops and executes exactly one event. */
  processNext(): void {
    const t = this.events.peekTime();
    const kind = this.events.peekKind();
    const req = this.events.peekPayload();
    this.events.pop();
    this.clock = t;
    if (kind === EV_STEP) {
      this.pendingSteps--;
      this.step(t);
    } else if (kind === EV_QUEUED) {
      this.onQueued(req!, t);
    } else {
      this.events.push(t + this.latency.queueingTime(req!.inputLen), EV_QUEUED, req);
    }
    if (this.observer !== null) this.observer.afterEvent(this, t, kind);
  }

  /** Drops the request as unservable or queues it (docs/behavior.md "Enqueue and unservable requests"). */
  private onQueued(req: Request, now: number): void {
    const unservable = unservableCheck(req, this.cfg, this.kv.totalBlocks);
    if (unservable !== null) {
      this.unservable.note(req.id, unservable, this.log);
      this.droppedUnservable++;
      this.ledger.drop(req);
      if (this.onLeave !== null) this.onLeave(req, now, true);
      req.dropPayload();
    } else {
      req.state = QUEUED;
      this.prioritizer.onQueued(req, now);
      this.waitQueue.pushBack(req);
      this.totalInputTokens += req.inputLen;
      if (this.probe !== null) this.probe.onQueued(this.index, req, now);
    }
    // Compat (docs/behavior.md#q1): this Step is not registered as the chain.
    if (!this.stepChainRegistered) this.pushStep(now);
  }

  /** One step, items 1 to 9 of docs/behavior.md "The step". */
  private step(now: number): void {
    const stepIdx = ++this.stepCount;
    this.kv.setClock(now);
    this.prioritizer.prioritize(this.waitQueue, now);

    const formation = this.formation;
    formation.form(this.running, stepIdx);
    this.preemptionCount += formation.evicted.length;
    const admitted = formation.admitted;
    for (let i = 0; i < admitted.length; i++) {
      const r = admitted[i]!;
      r.schedDelay = now - r.arrival;
    }
    this.queueSampleSum += this.waitQueue.length;
    this.queueSampleCount++;

    const batch = this.running;
    const d = this.latency.stepTime(batch, batch.length) + this.kv.consumeTransferLatency();
    this.lastStepDuration = d;
    this.running = this.execution.run(batch, now, d, stepIdx);

    // Next-step scheduling (item 9)
    if (this.running.length > 0 || this.waitQueue.length > 0) {
      this.pushStep(now + d);
      this.stepChainRegistered = true;
    } else {
      this.stepChainRegistered = false;
    }
    if (this.observer !== null) this.observer.afterStep(this);
  }

  private pushStep(t: number): void {
    this.events.push(t, EV_STEP, null);
    this.pendingSteps++;
  }

  /**
   * Pooled inter-token gaps of completed requests as value → count (docs/behavior.md
   * "The metrics block", itl_*).
   */
  pooledItl(into: Map<number, number>): void {
    this.itl.collect(into, this.stepCount);
  }

  /** sim_ended: timestamp of the last event this instance executed (docs/behavior.md#q18). */
  simEnded(): number {
    const last = this.clock > this.lastLeave ? this.clock : this.lastLeave;
    return last > this.horizon ? this.horizon : last;
  }
}

import { EventQueue, EV_ADAPTER_LOAD, EV_ARRIVAL, EV_QUEUED, EV_STEP, EV_TIMEOUT } from "../engine/eventQueue.js";
import type { LatencyModel } from "../latency/model.js";
import type { KvCache } from "../kv/kvCache.js";
import type { PriorityPolicy } from "../policy/priority.js";
import type { Scheduler } from "../policy/scheduler.js";
import type { RequestLedger } from "../core/ledger.js";
import type { Logger } from "../util/log.js";
import { BatchFormation } from "./batchFormation.js";
import { Deque } from "./deque.js";
import type { InstanceConfig } from "./instanceConfig.js";
import { PooledItl, oldestStepReferenced } from "./pooledItl.js";
import { Prioritizer } from "./prioritizer.js";
import { COMPLETED, QUEUED, RUNNING, TIMED_OUT, type Request } from "../core/request.js";
import { DecodeCohort, mergeByBatchOrder, stepsToDue } from "./decodeCohort.js";
import { StepExecution } from "./stepExecution.js";
import { runSteadySteps } from "./steadySteps.js";
import type { StepProbe } from "./stepProbe.js";
import { UnservableTally, unservableCheck } from "./unservable.js";
import { ACTIVE } from "../infra/lifecycle.js";
import type { InstanceLora } from "../lora/instanceLora.js";
import type { InstanceSpeculation } from "../speculative/instanceSpec.js";

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
  /** Requests whose client deadline passed before they completed (docs/behavior.md "Client timeouts"). */
  timedOut = 0;
  /** Requests that reached the instance with a client deadline. */
  withDeadline = 0;
  preemptionCount = 0;
  totalInputTokens = 0;
  totalOutputTokens = 0;
  kvAllocationFailures = 0;
  /** Requests dropped as unservable, by limit (the run reports them once). */
  readonly unservable = new UnservableTally();
  stepCount = 0;
  steadySteps = 0; // of stepCount, those taken without an event (steadySteps.ts)
  /** Duration of the most recent step, ticks (time-series sampling). */
  lastStepDuration = 0;
  queueSampleSum = 0;
  queueSampleCount = 0;

  /** Pooled ITL of the requests completed here. */
  readonly itl = new PooledItl();

  observer: InstanceObserver | null = null;
  probe: StepProbe | null = null;
  /**
   * Closed-loop hook: a request completed (t = end of its completion step), was dropped at
   * enqueue (t = now) or timed out (t = its deadline); `cancelled` for the last two. Called before
   * its payload is released; null in open-loop runs.
   */
  onLeave: ((req: Request, t: number, cancelled: boolean) => void) | null = null;
  horizon = Infinity;
  /** Lifecycle state (src/infra/lifecycle.ts); instances of runs without autoscaling stay Active. */
  lifecycle = ACTIVE;
  /** The instance's name when it is not `instance_<index>` (autoscaled instances). */
  name: string | null = null;
  readonly lora: InstanceLora | null; // LoRA adapters (docs/lora.md); null = off
  readonly spec: InstanceSpeculation | null; // speculative decoding (docs/speculative.md); null = off

  private readonly prioritizer: Prioritizer;
  private readonly formation: BatchFormation;
  private readonly execution: StepExecution;
  /** Requests in plain decode left out of the step's visits; undefined until the first step. */
  private cohort: DecodeCohort | null | undefined = undefined;
  /** The running requests outside the cohort, in batch order, kept from step to step. */
  private visit: Request[] = [];
  private spareVisit: Request[] = [];
  private readonly due: Request[] = [];

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
    this.lora = cfg.lora ?? null;
    this.lora?.bind(this.events);
    this.spec = cfg.speculation ?? null;
    // The LoRA step factor reads every scheduled request; a speculating decode is no plain decode.
    if (this.lora !== null || this.spec !== null) this.cohort = null;
    this.itl.oldest = () => oldestStepReferenced(this.stepCount, this.running, this.waitQueue);
  }

  get id(): string {
    return this.name ?? `instance_${this.index}`;
  }

  nextEventTime(): number {
    return this.events.peekTime();
  }

  /** Router injection at the routing time (docs/behavior.md "Routing and scorers", applying a decision). */
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

  /**
   * Pops and executes exactly one event, then, when it was a step, the steady steps after it that
   * start before `until()` (steadySteps.ts): the cluster's first moment anything else could happen,
   * asked after the step, which may have created cluster events.
   */
  processNext(until: (() => number) | null = null): void {
    const t = this.events.peekTime();
    const kind = this.events.peekKind();
    const req = this.events.peekPayload();
    this.events.pop();
    // A deadline of a request that already left (or moved to another instance) is no event: it
    // must not advance the clock, or it would extend sim_ended.
    if (kind === EV_TIMEOUT && (req!.state === COMPLETED || req!.state === TIMED_OUT || req!.instance !== this.index))
      return;
    this.clock = t;
    if (kind === EV_STEP) {
      this.pendingSteps--;
      this.step(t, until);
    } else if (kind === EV_QUEUED) {
      this.onQueued(req!, t);
    } else if (kind === EV_TIMEOUT) {
      this.expire(req!, t);
    } else if (kind === EV_ADAPTER_LOAD) {
      this.adapterLoaded(t);
    } else {
      this.events.push(t + this.latency.queueingTime(req!.inputLen), EV_QUEUED, req);
    }
    if (this.observer !== null) this.observer.afterEvent(this, t, kind);
  }

  /** Drops the request as unservable or queues it (docs/behavior.md "Enqueue and unservable requests"). */
  private onQueued(req: Request, now: number): void {
    if (req.deadline > 0) this.withDeadline++;
    const unservable = unservableCheck(req, this.cfg, this.kv.totalBlocks);
    if (unservable !== null) {
      this.unservable.note(req.id, unservable, this.log);
      this.droppedUnservable++;
      this.ledger.drop(req);
      if (this.onLeave !== null) this.onLeave(req, now, true);
      req.dropPayload();
    } else if (req.deadline > 0 && req.deadline <= now) {
      // Past due on arrival (it waited in the pipeline): counted as input, never queued.
      this.totalInputTokens += req.inputLen;
      this.expire(req, now);
    } else {
      req.state = QUEUED;
      this.prioritizer.onQueued(req, now);
      this.waitQueue.pushBack(req);
      this.totalInputTokens += req.inputLen;
      if (this.probe !== null) this.probe.onQueued(this.index, req, now);
      if (req.deadline > 0 && req.deadline <= this.horizon) this.events.push(req.deadline, EV_TIMEOUT, req);
    }
    // Compat (docs/behavior.md#q1): this Step is not registered as the chain, except in closed-loop runs.
    if (!this.stepChainRegistered) {
      this.pushStep(now);
      if (this.cfg.oneStepChain === true) this.stepChainRegistered = true;
    }
  }

  /**
   * The client gave up on req (docs/behavior.md "Client timeouts"): it leaves the batch or the
   * wait queue and frees its KV blocks; its record keeps what it reached, without an E2E.
   */
  private expire(req: Request, now: number): void {
    if (req.state === RUNNING) {
      // Cohort members are not up to date: bring every member back before removing one.
      const cohort = this.cohort;
      if (cohort !== undefined && cohort !== null && cohort.count > 0) cohort.drain(this.stepCount + 1);
      const i = this.running.indexOf(req);
      if (i >= 0) this.running.splice(i, 1);
    } else if (req.state === QUEUED) {
      this.waitQueue.remove(req);
    }
    req.state = TIMED_OUT;
    this.releaseHeld(req);
    this.timedOut++;
    this.ledger.timeOut(req);
    if (this.onLeave !== null) this.onLeave(req, now, true);
    req.dropPayload();
    if (this.running.length === 0 && this.waitQueue.length > 0 && this.pendingSteps === 0) {
      this.pushStep(now);
      this.stepChainRegistered = true;
    }
  }

  /** One step, items 1 to 9 of docs/behavior.md "The step". */
  // eslint-disable-next-line complexity -- the hot loop: the nine items in order, once per step
  private step(now: number, until: (() => number) | null): void {
    if (until !== null && this.resumeSteady(now, until)) return;
    const stepIdx = ++this.stepCount;
    this.kv.setClock(now);
    this.prioritizer.prioritize(this.waitQueue, now);
    if (this.lora !== null && this.waitQueue.length > 0) this.lora.gate(this.waitQueue.peekFront(), now);

    const cohort = this.decodeCohort();
    const batch = cohort === null ? this.running : this.visitList(cohort, stepIdx);
    const steady = batch === this.running ? 0 : cohort!.count;
    const formation = this.formation;
    formation.form(this.running, stepIdx, batch, steady);
    this.preemptionCount += formation.evicted.length;
    const admitted = formation.admitted;
    for (let i = 0; i < admitted.length; i++) {
      const r = admitted[i]!;
      r.schedDelay = now - r.arrival;
      if (batch !== this.running) batch.push(r);
    }
    if (this.lora !== null) this.lora.onAdmitted(admitted);
    this.queueSampleSum += this.waitQueue.length;
    this.queueSampleCount++;

    const n = batch.length;
    const base =
      steady === 0
        ? this.latency.stepTime(batch, n)
        : this.latency.stepTimeWithDecodes!(batch, n, steady, cohort!.piSum);
    const proposing = this.spec === null ? 0 : this.spec.proposalTime(batch, n);
    const d =
      (this.lora === null ? base : this.lora.stepTime(batch, base)) + proposing + this.kv.consumeTransferLatency();
    this.lastStepDuration = d;
    const kept = this.execution.run(batch, now, d, stepIdx, steady);
    if (batch === this.running) this.running = kept;
    else if (kept.length < n) this.dropCompleted();
    if (cohort !== null) {
      cohort.endStep();
      this.enroll(cohort, kept, stepIdx);
    }

    // Next-step scheduling (item 9)
    if (this.running.length > 0 || (this.waitQueue.length > 0 && (this.lora === null || this.lora.loading === ""))) {
      let next = now + d;
      if (cohort !== null && until !== null)
        next = runSteadySteps(this, cohort, this.execution, this.visit, this.events.peekTime(), next, until);
      this.pushStep(next);
      this.stepChainRegistered = true;
    } else {
      this.stepChainRegistered = false;
    }
    if (this.observer !== null) this.observer.afterStep(this);
  }

  /**
   * A step that finds only the decode cohort running and nothing waiting (most often the one after
   * a steady run that stopped at a cluster event of another instance) is a steady step: it and the
   * steady steps after it run in the steady loop, and the step after them is pushed, as the full
   * step would have done. False, with nothing done, when the loop takes no step.
   */
  private resumeSteady(now: number, until: () => number): boolean {
    const cohort = this.cohort;
    if (cohort === undefined || cohort === null || cohort.count === 0) return false;
    const steps = this.stepCount;
    const next = runSteadySteps(this, cohort, this.execution, this.visit, this.events.peekTime(), now, until);
    if (this.stepCount === steps) return false;
    this.pushStep(next);
    this.stepChainRegistered = true;
    return true;
  }

  /** The decode cohort, when usable: decodes priced by count and PI sum, one KV tier, no observer or probe. */
  private decodeCohort(): DecodeCohort | null {
    if (this.cohort === undefined) {
      const ok =
        this.latency.stepTimeWithDecodes !== undefined &&
        this.kv.cpuTierStats() === null &&
        this.observer === null &&
        this.probe === null;
      this.cohort = ok ? new DecodeCohort(this.itl, this.kv, this.cfg.blockSize) : null;
    }
    return this.cohort;
  }

  /**
   * The requests step `stepIdx` visits: the running ones outside the cohort, after the members due
   * now have left it; or, when the step could cut a request short or preempt, every running request
   * (the cohort emptied first).
   */
  private visitList(cohort: DecodeCohort, stepIdx: number): Request[] {
    const due = this.due;
    const nDue = cohort.takeDue(stepIdx, due);
    if (cohort.count === 0) return this.running;
    if (nDue !== 0) this.mergeDue(due, nDue);
    if (this.formation.fitsWithCohort(this.visit, cohort.count)) return this.visit;
    cohort.drain(stepIdx);
    return this.running;
  }

  /** Merges due[0 .. nDue) back from the cohort into the visit list, in batch order. */
  private mergeDue(due: Request[], nDue: number): void {
    const merged = mergeByBatchOrder(this.visit, due, nDue, this.spareVisit);
    this.spareVisit = this.visit;
    this.visit = merged;
  }

  /** Removes the requests completed in this step from the running batch, keeping its order. */
  private dropCompleted(): void {
    const running = this.running;
    let k = 0;
    for (let i = 0; i < running.length; i++) {
      const r = running[i]!;
      if (r.state !== COMPLETED) running[k++] = r;
    }
    running.length = k;
  }

  /**
   * Puts the visited requests that are in plain decode into the cohort until their next step
   * that does more than add a token: the one where their last KV block fills or they need a new
   * one, or the one where they complete.
   */
  private enroll(cohort: DecodeCohort, visited: readonly Request[], stepIdx: number): void {
    const bs = this.cfg.blockSize;
    // The others stay in the visit list (compacted in place when it is the list visited).
    const rest = this.visit;
    let kept = 0;
    for (let i = 0; i < visited.length; i++) {
      const r = visited[i]!;
      if (
        r.state === RUNNING &&
        r.decodeRunStart >= 0 &&
        r.numNewTokens === 1 &&
        r.pi >= r.inputLen &&
        r.outputLen > 0 &&
        r.nBlocks > 0
      ) {
        // The step that fills the last block needs a visit only when the filling is seen by
        // others; else the member stays out until the step that needs a new block.
        const k = stepsToDue(r, r.pi, r.tailFill, bs, this.kv);
        if (k > 1) {
          cohort.enter(r, stepIdx, stepIdx + k);
          continue;
        }
      }
      rest[kept++] = r;
    }
    if (rest.length !== kept) rest.length = kept;
  }

  /** Gateway in-flight eviction (docs/gateway.md): req leaves with its KV blocks and record; false when not here. */
  evict(req: Request): boolean {
    if (req.state === COMPLETED) return false;
    if (!this.waitQueue.remove(req)) {
      const r = this.running.indexOf(req);
      if (r < 0) return false;
      // Members of the decode cohort are brought up to date; the next step visits every request.
      if (this.cohort && this.cohort.count > 0) this.cohort.drain(this.stepCount + 1);
      this.running.splice(r, 1);
    }
    this.releaseHeld(req);
    req.state = COMPLETED;
    this.ledger.drop(req);
    req.dropPayload();
    return true; // a step is already pending whenever the batch or the queue was non-empty
  }

  /** Frees what a request leaving for good holds here: its KV blocks and its LoRA adapter pin. */
  releaseHeld(req: Request): void {
    this.kv.release(req);
    if (this.lora !== null) this.lora.release(req);
  }

  /** An adapter load completed (docs/lora.md): an idle instance steps to admit its requests. */
  private adapterLoaded(now: number): void {
    this.lora!.loaded();
    if (this.pendingSteps > 0 || this.waitQueue.length === 0) return;
    this.pushStep(now);
    this.stepChainRegistered = true;
  }

  private pushStep(t: number): void {
    this.events.push(t, EV_STEP, null);
    this.pendingSteps++;
  }

  /** Pooled inter-token gaps of completed requests as value → count (docs/behavior.md "The metrics block"). */
  pooledItl(into: Map<number, number>): void {
    this.itl.collect(into, this.stepCount);
  }

  /** sim_ended: timestamp of the last event this instance executed (docs/behavior.md#q18). */
  simEnded(): number {
    const last = this.clock > this.lastLeave ? this.clock : this.lastLeave;
    return last > this.horizon ? this.horizon : last;
  }
}

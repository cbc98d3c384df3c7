import { EventQueue, EV_ARRIVAL, EV_QUEUED, EV_STEP } from "../engine/eventQueue.js";
import type { LatencyModel } from "../latency/model.js";
import type { KvStore } from "../kv/kvStore.js";
import type { PriorityPolicy } from "../policy/priority.js";
import type { Scheduler } from "../policy/scheduler.js";
import type { RequestLedger } from "../metrics/ledger.js";
import { tierOf } from "../policy/sloTiers.js";
import type { Logger } from "../util/log.js";
import { Deque } from "./deque.js";
import type { StepProbe } from "./stepProbe.js";
import { COMPLETED, QUEUED, RUNNING, Request } from "./request.js";

export interface InstanceConfig {
  maxRunning: number;
  maxScheduledTokens: number;
  longPrefillThreshold: number;
  blockSize: number;
  /** Per-SLO-class chunking thresholds (extension); null = the global threshold for everyone. */
  sloPrefillThresholds: ReadonlyMap<string, number> | null;
  /** Victim choice when batch formation needs KV blocks: BLIS tail, or the SLO-aware extension. */
  preemptionPolicy: "tail" | "slo-aware";
  /** Apply priority floors set by the router priority bridge. */
  priorityFloors: boolean;
  /** Longest sequence (prompt + output) the instance serves; 0 = unlimited (docs/latency.md "Max model length"). */
  maxModelLen: number;
}

/** Hooks for invariant checking in tests; null in production runs. */
export interface InstanceObserver {
  afterEvent(inst: Instance, time: number, kind: number): void;
  afterStep(inst: Instance): void;
}

/**
 * One vLLM-like inference instance (docs/behavior.md "The step"): its own event queue, wait queue,
 * running batch, KV cache and latency model.
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
  stepCount = 0;
  /** Duration of the most recent step, ticks (time-series sampling). */
  lastStepDuration = 0;
  queueSampleSum = 0;
  queueSampleCount = 0;

  /** Per-step ITL value (d + α2) and decode-run boundary counts, indexed by step number. */
  stepVal = new Float64Array(1024);
  runDiff = new Int32Array(1024);

  observer: InstanceObserver | null = null;
  probe: StepProbe | null = null;
  horizon = Infinity;

  private readonly alpha2: number;
  /** Today's request timeline (see Timeline in latency/model.ts). */
  private readonly current: boolean;
  private readonly postDecode: number;
  private scratchOrig: Request[] = [];
  private scratchRemaining: Request[] = [];
  private scratchSort: Request[] = [];
  private evicted: Request[] = [];
  private admitted: Request[] = [];
  private budget = 0;
  private preempted = false;

  constructor(
    readonly index: number,
    readonly cfg: InstanceConfig,
    readonly kv: KvStore,
    readonly latency: LatencyModel,
    readonly priority: PriorityPolicy,
    readonly scheduler: Scheduler,
    readonly ledger: RequestLedger,
    readonly log: Logger,
  ) {
    this.alpha2 = latency.outputTokenProcessingTime();
    this.current = latency.timeline === "current";
    this.postDecode = latency.postDecodeOverhead();
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

  private onQueued(req: Request, now: number): void {
    const needed = blocksToComplete(req.inputLen, req.outputLen, this.cfg.blockSize);
    const mml = this.cfg.maxModelLen;
    if (mml > 0 && (req.inputLen >= mml || req.inputLen + req.outputLen > mml)) {
      this.log.warn(
        `dropping request ${req.id} as unservable: prompt ${req.inputLen} + output ${req.outputLen} tokens exceed max-model-len ${mml}`,
      );
      this.droppedUnservable++;
      this.ledger.drop(req);
      req.dropPayload();
    } else if (needed > this.kv.totalBlocks) {
      this.log.warn(
        `dropping request ${req.id} as unservable: it needs ${needed} KV blocks to complete but the instance has ${this.kv.totalBlocks}`,
      );
      this.droppedUnservable++;
      this.ledger.drop(req);
      req.dropPayload();
    } else {
      req.state = QUEUED;
      // A constant policy is not recomputed every step (prioritize), so it is evaluated once here.
      // That is the per-step value, and it overwrites any routing hint (docs/behavior.md#c2).
      if (this.priority.isConstant && !this.cfg.priorityFloors) req.priority = this.priority.compute(req, now);
      this.waitQueue.pushBack(req);
      this.totalInputTokens += req.inputLen;
      if (this.probe !== null) this.probe.onQueued(this.index, req, now);
    }
    // Compat (docs/behavior.md#q1): this Step is not registered as the chain.
    if (!this.stepChainRegistered) this.pushStep(now);
  }

  private step(now: number): void {
    const stepIdx = ++this.stepCount;
    this.kv.setClock(now);
    this.prioritize(now);

    this.formBatch();
    const evicted = this.evicted;
    for (let i = 0; i < evicted.length; i++) this.preemptionCount++;
    const admitted = this.admitted;
    for (let i = 0; i < admitted.length; i++) {
      const r = admitted[i]!;
      r.schedDelay = now - r.arrival;
    }
    this.queueSampleSum += this.waitQueue.length;
    this.queueSampleCount++;

    // Execution pass (docs/behavior.md "The step", item 7)
    const batch = this.running;
    const n = batch.length;
    const d = this.latency.stepTime(batch, n) + this.kv.consumeTransferLatency();
    const itlVal = d + this.alpha2;
    this.lastStepDuration = d;
    this.recordStep(stepIdx, itlVal);
    if (this.probe !== null) this.probe.onStep(this.index, stepIdx, now, d, batch, n, this.latency);
    // Completion is decided per request right after its update; updates never touch the KV
    // store, so this equals running the completion pass after all updates (docs/behavior.md "The step").
    const remaining = this.scratchRemaining;
    remaining.length = 0;
    const a2 = this.alpha2;
    let decoded = 0;
    const current = this.current;
    for (let i = 0; i < n; i++) {
      const r = batch[i]!;
      if (current && r.numNewTokens === 0) {
        // Today's engine: a request left out of this step does not advance.
        this.closeDecodeRun(r, stepIdx);
        remaining.push(r);
        continue;
      }
      const L = r.inputLen;
      let pi = r.pi;
      if (pi < L) {
        pi = r.computed;
      } else {
        pi++;
        decoded++;
        r.itlSum += itlVal;
        r.itlCount++;
        if (r.decodeRunStart < 0) r.decodeRunStart = stepIdx;
      }
      r.pi = pi;
      if (pi === L) {
        r.ttft = now + d + a2 - r.arrival;
        if (this.probe !== null) this.probe.onFirstToken(this.index, r, stepIdx);
        // Today's engine counts the token the prefill step produces (O per completed request).
        if (current && r.outputLen > 0) decoded++;
      }
      const O = r.outputLen;
      if (pi === L + (O > 1 ? O : 1) - 1) this.completeRequest(r, now, d, stepIdx, itlVal);
      else remaining.push(r);
    }
    this.totalOutputTokens += decoded;

    // Next-step scheduling (docs/behavior.md "The step", item 9)
    this.scratchRemaining = batch;
    this.running = remaining;
    if (remaining.length > 0) {
      this.pushStep(now + d);
      this.stepChainRegistered = true;
    } else {
      this.stepChainRegistered = false;
      if (this.waitQueue.length > 0) {
        this.pushStep(now + d);
        this.stepChainRegistered = true;
      }
    }
    if (this.observer !== null) this.observer.afterStep(this);
  }

  /** Ends r's open run of consecutive decode steps before stepIdx (pooled ITL bookkeeping). */
  private closeDecodeRun(r: Request, stepIdx: number): void {
    if (r.decodeRunStart < 0) return;
    (r.decodeRuns ??= []).push(r.decodeRunStart, stepIdx);
    r.decodeRunStart = -1;
  }

  private pushStep(t: number): void {
    this.events.push(t, EV_STEP, null);
    this.pendingSteps++;
  }

  private completeRequest(r: Request, now: number, d: number, stepIdx: number, itlVal: number): void {
    r.state = COMPLETED;
    const O = r.outputLen;
    // Compat (docs/behavior.md#q3): on the seed timeline the completion appends a duplicate of the
    // final step's ITL entry.
    const duplicate = O > 0 && !this.current;
    if (duplicate) {
      r.itlSum += itlVal;
      r.itlCount++;
    }
    if (O > 0) {
      if (!this.kv.allocate(r, r.pi, r.pi + 1, 0)) {
        this.log.error(`KV allocation failed for the final token of ${r.id}`);
        this.kvAllocationFailures++;
      }
    }
    this.kv.release(r);
    const leave = now + d;
    if (leave > this.lastLeave && leave <= this.horizon) this.lastLeave = leave;
    this.completed++;
    // Pool this request's ITL entries: decode runs (the open one ends with this step) plus the
    // duplicated completion entry at this step.
    const diff = this.runDiff;
    if (r.decodeRunStart >= 0) {
      diff[r.decodeRunStart]!++;
      diff[stepIdx + 1]!--;
    }
    if (duplicate) {
      diff[stepIdx]!++;
      diff[stepIdx + 1]!--;
    }
    if (r.decodeRuns !== null) {
      const runs = r.decodeRuns;
      for (let k = 0; k < runs.length; k += 2) {
        diff[runs[k]!]!++;
        diff[runs[k + 1]!]!--;
      }
    }
    if (this.probe !== null) this.probe.onComplete(this.index, r, stepIdx);
    r.decodeRunStart = -1;
    const e2e = r.ttft + r.itlSum + (O > 0 ? this.postDecode : 0);
    const perReqItl = O > 0 ? r.itlSum / Math.max(O - 1, 1) : 0;
    this.ledger.complete(r, e2e, perReqItl);
    r.dropPayload();
  }

  private recordStep(stepIdx: number, itlVal: number): void {
    if (stepIdx + 2 > this.stepVal.length) {
      const cap = this.stepVal.length * 2;
      const v = new Float64Array(cap);
      v.set(this.stepVal);
      this.stepVal = v;
      const rd = new Int32Array(cap);
      rd.set(this.runDiff);
      this.runDiff = rd;
    }
    this.stepVal[stepIdx] = itlVal;
  }

  private prioritize(now: number): void {
    const wq = this.waitQueue;
    const n = wq.length;
    if (n === 0) return;
    const policy = this.priority;
    const floors = this.cfg.priorityFloors;
    if (!policy.isConstant || floors) {
      for (let i = 0; i < n; i++) {
        const r = wq.at(i);
        let p = policy.compute(r, now);
        if (floors && r.priorityFloor !== 0 && r.priorityFloor > p) p = r.priorityFloor;
        r.priority = p;
      }
    }
    if (this.scheduler.reorders && n > 1) {
      const arr = wq.toArray(this.scratchSort);
      const sched = this.scheduler;
      arr.sort((a, b) => sched.compare(a, b));
      wq.assign(arr);
    }
  }

  private thresholdFor(r: Request): number {
    const m = this.cfg.sloPrefillThresholds;
    if (m !== null) {
      const v = m.get(r.sloClass === "" ? "default" : r.sloClass);
      if (v !== undefined) return v;
    }
    return this.cfg.longPrefillThreshold;
  }

  /**
   * Batch formation (docs/behavior.md "Batch formation and chunked prefill"). Fills this.evicted
   * and this.admitted.
   */
  private formBatch(): void {
    this.evicted.length = 0;
    this.admitted.length = 0;
    this.budget = this.cfg.maxScheduledTokens;
    this.preempted = false;
    const running = this.running;
    const orig = this.scratchOrig;
    orig.length = running.length;
    for (let i = 0; i < running.length; i++) orig[i] = running[i]!;
    // Today's engine schedules afresh every step; the seed engine keeps stale counts (Compat).
    if (this.current) for (let i = 0; i < running.length; i++) running[i]!.numNewTokens = 0;

    const bs = this.cfg.blockSize;
    const kv = this.kv;
    // The budget lives in a local through pass 1 (makeRoom does not read it).
    let budget = this.budget;
    // Pass 1: requests already running. Requests evicted earlier in this pass are skipped: BLIS
    // still visits them ("ghosts", docs/behavior.md#q9) and hands them KV blocks while they wait,
    // which can wedge an instance; vLLM never gives waiting requests blocks.
    for (let i = 0; i < orig.length; i++) {
      const r = orig[i]!;
      if (budget <= 0) {
        this.log.debug(`instance_${this.index}: token budget exhausted in the running-batch pass`);
        break;
      }
      if (r.state !== RUNNING) continue;
      const L = r.inputLen;
      const pi = r.pi;
      if (pi < L) {
        let n = L - pi;
        const thr = this.thresholdFor(r);
        if (thr > 0 && n > thr) n = thr;
        if (n > budget) n = budget;
        if (!this.makeRoom(r, n)) break;
        budget -= n;
        r.numNewTokens = n;
        r.computed += n;
      } else if (r.outputLen > 0) {
        if (r.nBlocks > 0 && r.tailFill < bs) kv.appendDecodeToken(r, pi);
        else if (!this.makeRoom(r, 1)) break;
        budget -= 1;
        r.numNewTokens = 1;
        r.computed += 1;
      }
    }
    this.budget = budget;

    // Pass 2: admit from the head of the wait queue.
    const wq = this.waitQueue;
    while (running.length < this.cfg.maxRunning && wq.length > 0 && this.budget > 0 && !this.preempted) {
      const r = wq.peekFront();
      let nPrefix = this.kv.cachedPrefix(r);
      // Today's engine always computes part of the prompt (vLLM recomputes at least its last
      // token), so a fully cached prompt reuses all but its last block. The seed engine admits it
      // with no new tokens (docs/behavior.md#q10).
      if (this.current && nPrefix > 0 && nPrefix * bs >= r.inputLen) nPrefix--;
      const c = nPrefix * bs;
      let n = r.inputLen - c;
      const thr = this.thresholdFor(r);
      if (thr > 0 && n > thr) n = thr;
      if (n > this.budget) n = this.budget;
      if (!this.kv.allocate(r, c, c + n, nPrefix)) break;
      wq.popFront();
      running.push(r);
      r.scheduledStep = this.stepCount;
      this.admitted.push(r);
      this.budget -= n;
      r.state = RUNNING;
      r.numNewTokens = n;
      r.computed = n + c;
    }
  }

  /** Makes room for m tokens of r, preempting from the running batch (docs/behavior.md "Preemption"). */
  private makeRoom(r: Request, m: number): boolean {
    for (;;) {
      if (this.kv.allocate(r, r.pi, r.pi + m, 0)) return true;
      const running = this.running;
      if (running.length === 0) {
        this.log.warn(`instance_${this.index}: KV cache too small for ${r.id}`);
        return false;
      }
      this.preempted = true;
      const vi = this.cfg.preemptionPolicy === "slo-aware" ? this.sloAwareVictim() : running.length - 1;
      const v = running[vi]!;
      running.splice(vi, 1);
      this.evicted.push(v);
      v.state = QUEUED;
      v.pi = 0;
      this.kv.release(v);
      v.computed = 0;
      this.closeDecodeRun(v, this.stepCount);
      this.waitQueue.pushFront(v);
      if (v === r) return false;
    }
  }

  /** Lowest SLO tier; among equals the one closest to the tail. */
  private sloAwareVictim(): number {
    const running = this.running;
    let best = running.length - 1;
    let bestTier = tierOf(running[best]!.sloClass);
    for (let i = running.length - 2; i >= 0; i--) {
      const t = tierOf(running[i]!.sloClass);
      if (t < bestTier) {
        best = i;
        bestTier = t;
      }
    }
    return best;
  }

  /**
   * Pooled inter-token gaps of completed requests as value → count (docs/behavior.md
   * "The metrics block", itl_*).
   */
  pooledItl(into: Map<number, number>): void {
    let active = 0;
    for (let s = 1; s <= this.stepCount; s++) {
      active += this.runDiff[s]!;
      if (active > 0) {
        const v = this.stepVal[s]!;
        into.set(v, (into.get(v) ?? 0) + active);
      }
    }
  }

  /** sim_ended: timestamp of the last event this instance executed (docs/behavior.md#q18). */
  simEnded(): number {
    const last = this.clock > this.lastLeave ? this.clock : this.lastLeave;
    return last > this.horizon ? this.horizon : last;
  }
}

/**
 * KV blocks a request must hold at once to complete: its prompt, plus the decode positions up to
 * its last decode step (the completion-time token may fail to allocate; docs/behavior.md
 * "The step", item 8). BLIS checks the prompt alone (docs/behavior.md#q17), so a request whose
 * output cannot fit preempts itself forever; here it is dropped as unservable instead. Empty
 * prompts are unservable too.
 */
export function blocksToComplete(inputLen: number, outputLen: number, blockSize: number): number {
  // An empty prompt never reaches the completion condition (BLIS loops on it forever); vLLM
  // rejects empty prompts, so it is unservable.
  if (inputLen <= 0) return Infinity;
  const positions = outputLen > 1 ? inputLen + outputLen - 1 : inputLen;
  return Math.ceil(positions / blockSize);
}

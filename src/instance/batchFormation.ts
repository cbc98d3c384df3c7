import type { KvCache } from "../kv/kvCache.js";
import { tierOf } from "../policy/sloTiers.js";
import type { Logger } from "../util/log.js";
import type { Deque } from "./deque.js";
import type { InstanceConfig } from "./instanceConfig.js";
import { closeDecodeRun } from "./pooledItl.js";
import { QUEUED, RUNNING, type Request } from "../core/request.js";

/**
 * Batch formation with chunked prefill and preemption (docs/behavior.md "Batch formation and
 * chunked prefill", "Preemption"). Edits the running batch and the wait queue in place and lists
 * the requests it evicted and admitted; every list is reused from step to step.
 */
export class BatchFormation {
  /** Requests evicted in this step, in eviction order. */
  readonly evicted: Request[] = [];
  /** Requests admitted from the wait queue in this step. */
  readonly admitted: Request[] = [];
  /** The batch as the step found it: pass 1 walks this copy while preemption edits the batch. */
  private readonly original: Request[] = [];
  /** Entries of `original` in use: it is never shortened, since setting an array's length is slow. */
  private originalLen = 0;
  private running: Request[] = [];
  private stepIdx = 0;
  private budget = 0;
  /** Set once the step preempted a request; pass 2 then admits nothing. */
  private preempted = false;
  /** PD decode sub-requests waiting with their KV held (Instance.enqueueDirect counts them). */
  remoteWaiting = 0;
  private readonly reorder: Request[] = [];
  /** Last batchOrder handed out: the running batch is in increasing batchOrder. */
  private order = 0;

  constructor(
    private readonly instanceIndex: number,
    private readonly cfg: InstanceConfig,
    private readonly kv: KvCache,
    private readonly waitQueue: Deque<Request>,
    private readonly log: Logger,
    /** Today's request timeline (see Timeline in latency/model.ts). */
    private readonly current: boolean,
  ) {}

  /**
   * Forms step `stepIdx`'s batch out of `running`, which it edits. With a decode cohort, pass 1
   * visits only `visit` (the running requests outside it, in batch order) and the cohort's
   * `steady` members take one token each of the budget; fitsWithCohort() has checked that every
   * request then gets its tokens, so nothing is cut short or preempted.
   */
  form(running: Request[], stepIdx: number, visit: Request[] = running, steady = 0): void {
    // Emptied only when needed: setting an array's length is a runtime call.
    if (this.evicted.length !== 0) this.evicted.length = 0;
    if (this.admitted.length !== 0) this.admitted.length = 0;
    this.running = running;
    this.stepIdx = stepIdx;
    this.budget = this.cfg.maxScheduledTokens - steady;
    this.preempted = false;
    const original = this.original;
    for (let i = 0; i < visit.length; i++) original[i] = visit[i]!;
    this.originalLen = visit.length;
    // Today's engine schedules afresh every step; the seed engine keeps stale counts
    // (docs/behavior.md#q12).
    if (this.current) for (let i = 0; i < visit.length; i++) visit[i]!.numNewTokens = 0;
    this.scheduleRunning();
    this.admitWaiting();
  }

  /**
   * Pass 1: requests already running. Requests evicted earlier in this pass are skipped: BLIS
   * still visits them ("ghosts", docs/behavior.md#q9) and hands them KV blocks while they wait,
   * which can wedge an instance; vLLM never gives waiting requests blocks.
   */
  private scheduleRunning(): void {
    const original = this.original;
    const bs = this.cfg.blockSize;
    const kv = this.kv;
    // The budget lives in a local through the pass (makeRoom does not read it).
    let budget = this.budget;
    const visited = this.originalLen;
    const spec = this.cfg.speculation;
    if (spec !== undefined) {
      spec.beginStep(visited);
      for (let i = 0; i < visited; i++) {
        const r = original[i]!;
        // A request this step leaves out keeps a plain decode's count (the seed timeline reads stale counts).
        if (r.specTokens > 0) r.numNewTokens = 1;
        r.specTokens = 0;
      }
    }
    for (let i = 0; i < visited; i++) {
      const r = original[i]!;
      if (budget <= 0) {
        // Guarded: building the line costs an allocation in most steps of a loaded instance.
        if (this.log.enabled("debug"))
          this.log.debug(`instance_${this.instanceIndex}: token budget exhausted in the running-batch pass`);
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
        // Speculation: the step also verifies proposals (docs/speculative.md "The step").
        const s = spec === undefined ? 0 : spec.plan(r, budget);
        budget -= s;
        r.numNewTokens = 1 + s;
        r.computed += 1 + s;
      }
    }
    this.budget = budget;
  }

  /**
   * Whether pass 1 over `visit` (in batch order) with `steady` more requests each taking one token
   * gives every request all its tokens and needs no more fresh KV blocks than are free: then
   * pass 1 neither stops early nor preempts, whatever the order of the steady requests.
   */
  fitsWithCohort(visit: readonly Request[], steady: number): boolean {
    const bs = this.cfg.blockSize;
    let budget = this.cfg.maxScheduledTokens - steady;
    let blocks = 0;
    for (let i = 0; i < visit.length; i++) {
      const r = visit[i]!;
      if (r.state !== RUNNING) return false;
      const room = r.nBlocks > 0 && r.tailFill < bs ? bs - r.tailFill : 0;
      let n = 0;
      if (r.pi < r.inputLen) {
        n = r.inputLen - r.pi;
        const thr = this.thresholdFor(r);
        if (thr > 0 && n > thr) n = thr;
      } else if (r.outputLen > 0) {
        n = 1;
      }
      if (n > budget) return false;
      budget -= n;
      if (n > room) blocks += Math.ceil((n - room) / bs);
    }
    return blocks <= this.kv.freeBlocks();
  }

  /** Pass 2: admits from the head of the wait queue; a head that does not fit blocks the rest. */
  private admitWaiting(): void {
    const running = this.running;
    const wq = this.waitQueue;
    const kv = this.kv;
    const bs = this.cfg.blockSize;
    const lora = this.cfg.lora;
    if (this.remoteWaiting > 0 && wq.length > 0 && !wq.peekFront().remoteKv) this.remoteFirst();
    while (running.length < this.cfg.maxRunning && wq.length > 0 && this.budget > 0 && !this.preempted) {
      const r = wq.peekFront();
      if (r.remoteKv) {
        if (!this.admitRemote(r)) break;
        continue;
      }
      if (lora !== undefined && !lora.admits(r)) break; // its adapter is loading: head-of-line blocking
      let nPrefix = kv.cachedPrefix(r);
      // Today's engine always computes part of the prompt (vLLM recomputes at least its last
      // token), so a fully cached prompt reuses all but its last block. The seed engine admits it
      // with no new tokens (docs/behavior.md#q10).
      if (this.current && nPrefix > 0 && nPrefix * bs >= r.inputLen) nPrefix--;
      const c = nPrefix * bs;
      let n = r.inputLen - c;
      const thr = this.thresholdFor(r);
      if (thr > 0 && n > thr) n = thr;
      if (n > this.budget) n = this.budget;
      if (!kv.allocate(r, c, c + n, nPrefix)) break;
      wq.popFront();
      running.push(r);
      r.batchOrder = ++this.order;
      r.scheduledStep = this.stepIdx;
      this.admitted.push(r);
      this.budget -= n;
      r.state = RUNNING;
      r.numNewTokens = n;
      r.computed = n + c;
    }
  }

  /**
   * Admits a request whose prompt KV is already held (a PD decode sub-request): one decode token
   * at its progress index, no prefix lookup (docs/prefill-decode.md "Request flow").
   */
  private admitRemote(r: Request): boolean {
    if (!this.kv.allocate(r, r.pi, r.pi + 1, 0)) return false;
    this.waitQueue.popFront();
    this.running.push(r);
    r.batchOrder = ++this.order;
    r.scheduledStep = this.stepIdx;
    this.admitted.push(r);
    this.budget -= 1;
    r.state = RUNNING;
    r.remoteKv = false;
    this.remoteWaiting--;
    r.numNewTokens = 1;
    r.computed = r.pi + 1;
    return true;
  }

  /**
   * Moves waiting requests that hold their KV already (PD decode sub-requests) to the head, in
   * order: behind a request that needs the blocks they hold (a preempted one, say) they would wait
   * forever.
   */
  private remoteFirst(): void {
    const all = this.waitQueue.toArray(this.reorder);
    const n = all.length;
    const front: Request[] = [];
    const rest: Request[] = [];
    for (let i = 0; i < n; i++) (all[i]!.remoteKv ? front : rest).push(all[i]!);
    this.waitQueue.assign(front.concat(rest));
  }

  private thresholdFor(r: Request): number {
    const m = this.cfg.sloPrefillThresholds;
    if (m !== null) {
      const v = m.get(r.sloClass === "" ? "default" : r.sloClass);
      if (v !== undefined) return v;
    }
    return this.cfg.longPrefillThreshold;
  }

  /** Makes room for m tokens of r, preempting from the running batch (docs/behavior.md "Preemption"). */
  private makeRoom(r: Request, m: number): boolean {
    for (;;) {
      if (this.kv.allocate(r, r.pi, r.pi + m, 0)) return true;
      const running = this.running;
      if (running.length === 0) {
        this.log.warn(`instance_${this.instanceIndex}: KV cache too small for ${r.id}`);
        return false;
      }
      this.preempted = true;
      const rule = this.cfg.preemptionPolicy;
      const vi =
        rule === "tail" ? running.length - 1 : rule === "priority" ? this.leastUrgentVictim() : this.sloAwareVictim();
      const v = running[vi]!;
      running.splice(vi, 1);
      this.evicted.push(v);
      v.state = QUEUED;
      v.pi = 0;
      this.kv.releaseToRetry(v);
      v.computed = 0;
      v.specTokens = 0; // its proposals leave with it (its scratch KV slots go back at the end of the step)
      closeDecodeRun(v, this.stepIdx);
      this.waitQueue.pushFront(v);
      if (v === r) return false;
    }
  }

  /**
   * Least urgent running request: lowest priority (higher is more urgent here), then latest
   * arrival; among exact ties the one closest to the tail (docs/behavior.md "Preemption").
   */
  private leastUrgentVictim(): number {
    const running = this.running;
    let best = running.length - 1;
    let b = running[best]!;
    for (let i = running.length - 2; i >= 0; i--) {
      const r = running[i]!;
      if (r.priority < b.priority || (r.priority === b.priority && r.arrival > b.arrival)) {
        best = i;
        b = r;
      }
    }
    return best;
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
}

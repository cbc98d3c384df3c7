import { closeDecodeRun, type PooledItl } from "./pooledItl.js";
import { COMPLETED, type Request } from "../core/request.js";
import type { RequestLedger } from "../core/ledger.js";
import type { KvCache } from "../kv/kvCache.js";
import type { LatencyModel } from "../latency/model.js";
import type { Logger } from "../util/log.js";
import type { StepProbe } from "./stepProbe.js";
import type { InstanceSpeculation } from "../speculative/instanceSpec.js";

/** What the execution pass reads and updates of its instance (an `Instance`). */
export interface StepHost {
  readonly index: number;
  readonly kv: KvCache;
  readonly latency: LatencyModel;
  readonly ledger: RequestLedger;
  readonly log: Logger;
  readonly itl: PooledItl;
  readonly probe: StepProbe | null;
  /** Speculative decoding (docs/speculative.md); null = off. */
  readonly spec: InstanceSpeculation | null;
  readonly horizon: number;
  /** Frees what a completed request holds (Instance.releaseHeld). */
  releaseHeld(req: Request): void;
  /** Closed-loop hook (Instance.onLeave). */
  readonly onLeave: ((req: Request, t: number, cancelled: boolean) => void) | null;
  lastLeave: number;
  completed: number;
  totalOutputTokens: number;
  kvAllocationFailures: number;
}

/**
 * The execution pass of a step and the completion of requests (docs/behavior.md "The step",
 * items 7 and 8). Updates the instance's counters, its pooled ITL and the ledger.
 */
export class StepExecution {
  /** α2 of the latency model: output-token processing time, part of every ITL entry. */
  private readonly alpha2: number;
  /** Today's request timeline (see Timeline in latency/model.ts). */
  private readonly current: boolean;
  /** Added once to the E2E of a request with output (α1 on the current timeline). */
  private readonly postDecode: number;

  constructor(private readonly inst: StepHost) {
    this.alpha2 = inst.latency.outputTokenProcessingTime();
    this.current = inst.latency.timeline === "current";
    this.postDecode = inst.latency.postDecodeOverhead();
  }

  /**
   * Executes the batch of step `stepIdx` (started at `now`, lasting `d`) and returns the requests
   * that remain running: the batch itself, compacted in place. `steadyDecodes` requests of a decode
   * cohort decoded one token each without being in the batch.
   */
  run(batch: Request[], now: number, d: number, stepIdx: number, steadyDecodes = 0): Request[] {
    const inst = this.inst;
    const n = batch.length;
    const itlVal = d + this.alpha2;
    inst.itl.record(stepIdx, itlVal);
    const probe = inst.probe;
    if (probe !== null) probe.onStep(inst.index, stepIdx, now, d, batch, n, inst.latency);
    // Completion is decided per request right after its update; updates never touch the KV
    // store, so this equals running the completion pass after all updates (docs/behavior.md "The step").
    let kept = 0;
    const a2 = this.alpha2;
    let decoded = 0;
    const current = this.current;
    const spec = inst.spec;
    if (spec !== null) spec.endOfStepKv();
    for (let i = 0; i < n; i++) {
      const r = batch[i]!;
      if (current && r.numNewTokens === 0) {
        // Today's engine: a request left out of this step does not advance.
        closeDecodeRun(r, stepIdx);
        batch[kept++] = r;
        continue;
      }
      const L = r.inputLen;
      let pi = r.pi;
      if (pi < L) {
        pi = r.computed;
      } else {
        pi++;
        decoded++;
        if (r.specTokens > 0) {
          // Accepted proposals are emitted with the step's token, as one streamed chunk.
          const a = spec!.settle(r, pi);
          pi += a;
          decoded += a;
        }
        r.itlSum += itlVal;
        r.itlCount++;
        if (r.decodeRunStart < 0) r.decodeRunStart = stepIdx;
      }
      r.pi = pi;
      if (pi === L) {
        r.ttft = now + d + a2 - r.arrival;
        if (probe !== null) probe.onFirstToken(inst.index, r, stepIdx);
        // Today's engine counts the token the prefill step produces (O per completed request).
        if (current && r.outputLen > 0) decoded++;
      }
      const O = r.outputLen;
      // ≥: a request admitted with its prompt KV already held (PD decode) starts past L.
      if (pi >= L + (O > 1 ? O : 1) - 1) this.complete(r, now, d, stepIdx, itlVal);
      else batch[kept++] = r;
    }
    inst.totalOutputTokens += decoded + steadyDecodes;
    if (spec !== null) spec.stats.noteStep(decoded + steadyDecodes);
    if (kept !== n) batch.length = kept;
    return batch;
  }

  /** A step in which only `steady` cohort members decode (steadySteps.ts): run() on an empty batch. */
  recordSteady(stepIdx: number, d: number, steady: number): void {
    this.inst.itl.record(stepIdx, d + this.alpha2);
    this.inst.totalOutputTokens += steady;
  }

  /** Item 8: the final token's KV, release, leave time, E2E and the ledger record. */
  private complete(r: Request, now: number, d: number, stepIdx: number, itlVal: number): void {
    const inst = this.inst;
    r.state = COMPLETED;
    const O = r.outputLen;
    // Compat (docs/behavior.md#q3): on the seed timeline the completion appends a duplicate of the
    // final step's ITL entry.
    const duplicate = O > 0 && !this.current;
    if (duplicate) {
      r.itlSum += itlVal;
      r.itlCount++;
    }
    if (r.pi < r.inputLen + O) {
      if (!inst.kv.allocate(r, r.pi, r.pi + 1, 0)) {
        // Not an error: the request completes and its results stand; the count is printed.
        if (inst.log.enabled("debug")) {
          inst.log.debug(
            `${r.id} completed with no free KV block for its final token (counted in kv_allocation_failures)`,
          );
        }
        inst.kvAllocationFailures++;
      }
    }
    inst.releaseHeld(r);
    const leave = now + d;
    if (leave > inst.lastLeave && leave <= inst.horizon) inst.lastLeave = leave;
    inst.completed++;
    inst.itl.addCompleted(r, stepIdx, duplicate);
    if (inst.probe !== null) inst.probe.onComplete(inst.index, r, stepIdx);
    r.decodeRunStart = -1;
    // A PD decode sub-request that never prefilled here has no first token of its own.
    const e2e = (r.ttft >= 0 ? r.ttft : 0) + r.itlSum + (O > 0 ? this.postDecode : 0);
    const perReqItl = O > 0 ? r.itlSum / Math.max(O - 1, 1) : 0;
    inst.ledger.complete(r, e2e, perReqItl);
    if (inst.onLeave !== null) inst.onLeave(r, leave, false);
    r.dropPayload();
  }
}

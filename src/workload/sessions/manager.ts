// The session manager (docs/behavior.md "Closed-loop load"): when a request of a closed-loop session
// or virtual user ends on an instance, it decides whether the session goes on and makes the next
// round, which the cluster then admits and routes like any arrival.

import { RUN_WORDS } from "../../engine/rng.js";
import { TokenSeq } from "../../core/tokenSeq.js";
import type { WorkloadRequest } from "../../core/workloadRequest.js";
import type { Logger } from "../../util/log.js";
import { MAX_TOKENS_PER_BUFFER, newRequest } from "../gen/tokens.js";
import { ACTIVE, BUDGET_EXHAUSTED, CANCELLED, COMPLETED, HORIZON_INTERRUPTED, type Blueprint } from "./blueprint.js";
import type { SessionPlan } from "./plan.js";

/** What the manager reads of a request that ended. */
export interface EndedRequest {
  readonly id: string;
  readonly inputLen: number;
  readonly outputLen: number;
  /** Progress index when it ended (input plus generated tokens). */
  readonly pi: number;
}

const NO_RUNS = new Int32Array(0);

export class SessionManager {
  /** Follow-ups made so far (the budget counts them). */
  followUps = 0;
  private counter = 0;

  constructor(
    private readonly plan: SessionPlan,
    private readonly log: Logger,
  ) {}

  /**
   * Called for every request that completes, is dropped or times out on an instance, at tick t (the
   * end of its completion step, the instance clock of the drop, or the deadline). Returns the
   * session's next round, or null.
   */
  onEnd(req: EndedRequest, t: number, cancelled: boolean): WorkloadRequest | null {
    // A queue's next request follows any end, a drop included: the queue keeps its load.
    const feed = this.plan.feed;
    if (feed !== undefined) return feed.onEnd(req.id, t);
    const pending = this.plan.pending;
    if (pending.size === 0) return null;
    const id = req.id;
    const bp = pending.get(id);
    if (bp === undefined) return null;
    pending.delete(id);
    if (bp.status !== ACTIVE) return null;
    if (cancelled) {
      // A dropped or timed-out round ends the session: a user whose request failed does not go on.
      bp.status = CANCELLED;
      return null;
    }
    if (bp.round >= bp.maxRounds - 1) {
      bp.status = COMPLETED;
      return null;
    }
    if (this.followUps >= this.plan.budget) {
      bp.status = BUDGET_EXHAUSTED;
      return null;
    }
    const sampler = bp.thinkSampler;
    const arrival = t + (sampler !== undefined && sampler !== null ? sampler(bp.rng) : bp.thinkTime);
    if (arrival > this.plan.horizon) {
      bp.status = HORIZON_INTERRUPTED;
      return null;
    }
    return this.nextRound(bp, req, arrival);
  }

  private nextRound(bp: Blueprint, req: EndedRequest, arrival: number): WorkloadRequest | null {
    const rng = bp.rng;
    const inLen = bp.input.sample(rng);
    const outLen = bp.output.sample(rng);
    const run = new Int32Array(RUN_WORDS);
    rng.recordRun(run, 0, inLen + outLen);
    const p = bp.prefix.length;
    let tokens: TokenSeq;
    if (!bp.accumulate) {
      tokens = new TokenSeq(
        p + inLen + outLen,
        bp.prefix,
        inLen + outLen,
        run[0]!,
        run[1]!,
        run[2]!,
        run[3]!,
        NO_RUNS,
        0,
        0,
      );
    } else {
      // Compat: only the tokens the ended round generated join the context, PI − L of them, which
      // for a completed request is one less than its output (docs/behavior.md "Closed-loop load").
      const g = Math.max(0, req.pi - req.inputLen);
      if (g > req.outputLen) {
        this.log.error(
          `session ${bp.sessionId}: ${req.id} generated ${g} tokens, more than its output ${req.outputLen}; session cancelled`,
        );
        bp.status = CANCELLED;
        return null;
      }
      if (p + bp.contextLen + bp.lastNewInput + g + inLen + outLen > MAX_TOKENS_PER_BUFFER) {
        this.log.error(`session ${bp.sessionId}: context exceeds ${MAX_TOKENS_PER_BUFFER} tokens; session cancelled`);
        bp.status = CANCELLED;
        return null;
      }
      appendRun(bp, bp.lastRun, bp.lastNewInput + g);
      const runs = new Int32Array((bp.contextRuns + 1) * RUN_WORDS);
      runs.set(bp.context!.subarray(0, bp.contextRuns * RUN_WORDS));
      runs.set(run, bp.contextRuns * RUN_WORDS);
      tokens = new TokenSeq(p + bp.contextLen + inLen + outLen, bp.prefix, 0, 0, 0, 0, 0, runs, 0, bp.contextRuns + 1);
    }
    bp.lastRun.set(run);
    bp.lastNewInput = inLen;
    const round = ++bp.round;
    this.counter++;
    this.followUps++;
    const inputLen = tokens.length - outLen;
    const w = newRequest(bp, arrival, tokens, inputLen, outLen, false, bp.sessionId, round, 0, 0, 0, 0, 0);
    w.id = `session_${bp.sessionId}_round_${round}_${this.counter}`;
    if (bp.timeout > 0) w.deadline = arrival + bp.timeout;
    this.plan.pending.set(w.id, bp);
    this.plan.tags.set(w.id, { sessionId: bp.sessionId, round });
    return w;
  }
}

/** Appends the first `len` draws of `run` to the session's accumulated context. */
function appendRun(bp: Blueprint, run: Int32Array, len: number): void {
  const need = (bp.contextRuns + 1) * RUN_WORDS;
  if (bp.context === null || bp.context.length < need) {
    const grown = new Int32Array(Math.max(need, (bp.context?.length ?? 0) * 2));
    if (bp.context !== null) grown.set(bp.context);
    bp.context = grown;
  }
  const at = bp.contextRuns * RUN_WORDS;
  bp.context.set(run.subarray(0, 4), at);
  bp.context[at + 4] = len;
  bp.contextRuns++;
  bp.contextLen += len;
}

// Closed-loop replay of a trace v2 (docs/calibration.md "Closed-loop replay"): each recorded session
// sends its round 0 at its recorded time and every later round when the previous one ends, with the
// recorded lengths; think time from a flag, the recorded column, or the recorded arrival gap.

import { RUN_WORDS, Rng } from "../../engine/rng.js";
import { UserError } from "../../util/errors.js";
import type { WorkloadRequest } from "../../core/workloadRequest.js";
import type { LengthSampler } from "../samplers/length.js";
import type { TraceRecord } from "../trace/traceV2.js";
import { ACTIVE, type Blueprint } from "./blueprint.js";
import type { SessionPlan, SessionTag } from "./plan.js";

/** Think time of closed-loop replay: a constant or a distribution (flags), else null (the trace's). */
export type ReplayThink = { constantUs: number } | { sample(rng: Rng): number } | null;

export interface ReplaySessionOptions {
  /** `session_context_growth: accumulate` in the trace header. */
  accumulate: boolean;
  think: ReplayThink;
  horizon: number;
  seed: bigint;
  /** Client deadline of follow-ups, µs after their arrival (0 = none). */
  timeoutUs: number;
  /** Arrival of a row as the replay reads it. */
  arrivalOf(r: TraceRecord): number;
}

const SESSION_SEED_OFFSET = 7919n;

/** Recorded values in round order (lengths and think times of rounds 1 … n−1). */
class Recorded implements LengthSampler {
  readonly lowest: number;
  readonly highest: number;
  private i = 0;
  constructor(private readonly values: readonly number[]) {
    this.lowest = values.length > 0 ? Math.min(...values) : 0;
    this.highest = values.length > 0 ? Math.max(...values) : 0;
  }
  sample(): number {
    return this.values[this.i++] ?? 0;
  }
}

/**
 * Splits the replayed requests (`requests[k]` built from `rows[k]`) into what is sent at its recorded
 * time (rows without a session and every round 0) and one blueprint per session making the rest.
 */
export function planReplaySessions(
  rows: readonly TraceRecord[],
  requests: readonly WorkloadRequest[],
  o: ReplaySessionOptions,
): { requests: WorkloadRequest[]; plan: SessionPlan } {
  const bySession = new Map<string, number[]>();
  rows.forEach((r, k) => {
    if (r.session_id === "") return;
    let list = bySession.get(r.session_id);
    if (list === undefined) bySession.set(r.session_id, (list = []));
    list.push(k);
  });
  const later = new Set<number>();
  const blueprints = new Map<string, Blueprint>();
  const pending = new Map<string, Blueprint>();
  const tags = new Map<string, SessionTag>();
  const bpRng = new Rng(BigInt.asIntN(64, o.seed + SESSION_SEED_OFFSET));
  const ids = [...bySession.keys()].sort();
  for (const id of ids) {
    const ks = bySession.get(id)!.sort((a, b) => rows[a]!.round_index - rows[b]!.round_index);
    ks.forEach((k, i) => {
      if (rows[k]!.round_index !== i) {
        throw new UserError(
          `session "${id}" has non-consecutive round indices (expected ${i}, got ${rows[k]!.round_index})`,
        );
      }
    });
    for (const k of ks.slice(1)) later.add(k);
    const bp = blueprint(id, ks, rows, requests, o, new Rng(bpRng.int63()));
    blueprints.set(id, bp);
    const first = requests[ks[0]!]!;
    pending.set(first.id, bp);
    tags.set(first.id, { sessionId: id, round: 0 });
  }
  const kept = requests.filter((_, k) => !later.has(k));
  return { requests: kept, plan: { blueprints, pending, tags, budget: Infinity, horizon: o.horizon, users: 0 } };
}

function blueprint(
  id: string,
  ks: readonly number[],
  rows: readonly TraceRecord[],
  requests: readonly WorkloadRequest[],
  o: ReplaySessionOptions,
  rng: Rng,
): Blueprint {
  const first = requests[ks[0]!]!;
  const seq = first.tokenSeq;
  const prefix = seq.literal;
  const newInput = (k: number): number => requests[k]!.inputLen - prefix.length;
  const rest = ks.slice(1);
  const at = seq.firstRun * RUN_WORDS;
  return {
    tenantId: first.tenantId,
    sloClass: first.sloClass,
    model: first.model,
    sloTargetUs: first.sloTargetUs,
    sessionId: id,
    label: `session "${id}"`,
    maxRounds: ks.length,
    accumulate: o.accumulate,
    thinkTime: o.think !== null && "constantUs" in o.think ? o.think.constantUs : 0,
    thinkSampler: thinkOf(o, ks, rows),
    timeout: o.timeoutUs,
    input: new Recorded(rest.map(newInput)),
    output: new Recorded(rest.map((k) => requests[k]!.outputLen)),
    prefix,
    rng,
    status: ACTIVE,
    round: 0,
    contextLen: 0,
    context: null,
    contextRuns: 0,
    // Round 0's draws (new input, then output): inline in a replayed request.
    lastRun:
      seq.runLen > 0
        ? Int32Array.of(seq.s0, seq.s1, seq.s2, seq.s3, seq.runLen)
        : Int32Array.from(seq.runs.subarray(at, at + RUN_WORDS)),
    lastNewInput: newInput(ks[0]!),
  };
}

/** First match: the flags, the recorded think_time_us column, the gap between recorded arrivals. */
function thinkOf(
  o: ReplaySessionOptions,
  ks: readonly number[],
  rows: readonly TraceRecord[],
): ((rng: Rng) => number) | null {
  const t = o.think;
  if (t !== null) return "constantUs" in t ? null : (rng) => t.sample(rng);
  const recorded = ks.slice(1).map((k, i) => {
    const r = rows[k]!;
    if (r.think_time_us > 0) return r.think_time_us;
    return Math.max(0, o.arrivalOf(r) - o.arrivalOf(rows[ks[i]!]!));
  });
  const s = new Recorded(recorded);
  return () => s.sample();
}

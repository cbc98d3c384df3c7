// Generation of closed-loop load (docs/behavior.md "Closed-loop load"): the ordinary generator's
// requests minus the later rounds of closed-loop sessions, plus one seed request per virtual user,
// merged by arrival and renumbered; one blueprint per session for the session manager.

import { Rng } from "../../engine/rng.js";
import type { RequestSource, WorkloadRequest } from "../../core/workloadRequest.js";
import { ArrayRequestSource } from "../../core/workloadRequest.js";
import type { LengthSampler } from "../samplers/length.js";
import type { ClientSpec } from "../spec/types.js";
import { ClientStream } from "../gen/streams.js";
import { drawnTokens, newRequest, type RequestMeta } from "../gen/tokens.js";
import { ACTIVE, type Blueprint } from "./blueprint.js";
import { RUN_WORDS } from "../../engine/rng.js";

/** Streams of blueprints of closed-loop sessions and of virtual users (offsets of the spec seed). */
const SESSION_SEED_OFFSET = 7919n;
const USER_SEED_OFFSET = 10007n;

/** A closed-loop multi-turn client or a client of virtual users, with its built samplers. */
export interface LoopClient extends RequestMeta {
  readonly client: ClientSpec;
  readonly label: string;
  readonly input: LengthSampler;
  readonly output: LengthSampler;
  readonly prefix: Int32Array;
}

/** Session and round of a request that carries a session ID (session metrics). */
export interface SessionTag {
  readonly sessionId: string;
  readonly round: number;
}

/** Everything the session manager and the session metrics need. */
export interface SessionPlan {
  readonly blueprints: ReadonlyMap<string, Blueprint>;
  /** The session of each generated request still to end, by request ID. */
  readonly pending: Map<string, Blueprint>;
  /** Session and round of every request with a session ID, by request ID (follow-ups added as made). */
  readonly tags: Map<string, SessionTag>;
  /** Most follow-ups all sessions together may make (Infinity = no limit). */
  readonly budget: number;
  /** Follow-ups arriving after this tick are not made. */
  readonly horizon: number;
  /** Virtual users with a seed request. */
  readonly users: number;
  /** Follow-ups from a request queue instead of blueprints (a closed-loop trace); absent = none. */
  readonly feed?: SessionFeed;
}

/** Sends the next request of a queue whenever one of its requests ends (docs/traces.md "Closed loop"). */
export interface SessionFeed {
  /** The request that follows request `id`, ended at tick t (null: none, or `id` is not the feed's). */
  onEnd(id: string, t: number): WorkloadRequest | null;
}

/**
 * A client stream whose requests are remembered as closed-loop (their later rounds are discarded and
 * round 0 gets a blueprint). Mirrors the inner stream's head and done.
 */
export class ClosedLoopStream extends ClientStream {
  constructor(
    private readonly inner: ClientStream,
    private readonly owner: LoopClient,
    private readonly marks: Map<WorkloadRequest, LoopClient>,
  ) {
    super();
    this.head = inner.head;
    this.done = inner.done;
  }
  take(): ReturnType<ClientStream["take"]> {
    const r = this.inner.take();
    this.head = this.inner.head;
    this.done = this.inner.done;
    this.marks.set(r, this.owner);
    return r;
  }
}

export interface LoopInputs {
  /** The ordinary generator's merged requests (virtual users produce nothing there). */
  readonly base: RequestSource;
  /** Requests of closed-loop multi-turn clients, filled while `base` is read. */
  readonly marks: Map<WorkloadRequest, LoopClient>;
  /** Clients of virtual users, in client order. */
  readonly users: readonly LoopClient[];
  readonly seed: bigint;
  /** Request cap (0 = none). */
  readonly cap: number;
  readonly horizon: number;
}

/** Steps 1 to 4 of docs/behavior.md "Closed-loop load", generation. */
export function planClosedLoop(inp: LoopInputs): { source: RequestSource; plan: SessionPlan } {
  const kept: WorkloadRequest[] = [];
  const round0 = new Map<LoopClient, WorkloadRequest[]>();
  for (let r = inp.base.next(); r !== null; r = inp.base.next()) {
    const owner = inp.marks.get(r);
    if (owner !== undefined) {
      inp.marks.delete(r);
      if (r.roundIndex !== 0) continue;
      let list = round0.get(owner);
      if (list === undefined) round0.set(owner, (list = []));
      list.push(r);
    }
    kept.push(r);
  }
  const blueprints = new Map<string, Blueprint>();
  const first = new Map<WorkloadRequest, Blueprint>();
  const bpRng = new Rng(BigInt.asIntN(64, inp.seed + SESSION_SEED_OFFSET));
  for (const [owner, list] of round0) {
    list.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
    for (const r of list) {
      const bp = sessionBlueprint(owner, r, new Rng(bpRng.int63()));
      blueprints.set(bp.sessionId, bp);
      first.set(r, bp);
    }
  }
  const seeds = userSeeds(inp, kept.length, blueprints, first);
  const all = mergeByArrival(kept, seeds);
  const pending = new Map<string, Blueprint>();
  const tags = new Map<string, SessionTag>();
  for (let n = 0; n < all.length; n++) {
    const r = all[n]!;
    r.id = `request_${n}`;
    if (r.sessionId !== "") tags.set(r.id, { sessionId: r.sessionId, round: r.roundIndex });
    const bp = first.get(r);
    if (bp !== undefined) pending.set(r.id, bp);
  }
  const budget = inp.cap > 0 && seeds.length > 0 ? Math.max(0, inp.cap - all.length) : Infinity;
  return {
    source: new ArrayRequestSource(all),
    plan: { blueprints, pending, tags, budget, horizon: inp.horizon, users: seeds.length },
  };
}

function sessionBlueprint(owner: LoopClient, r: WorkloadRequest, rng: Rng): Blueprint {
  const mt = owner.client.reasoning!.multi_turn!;
  const seq = r.tokenSeq;
  const at = seq.firstRun * RUN_WORDS;
  // Round 0's draws: its new input, then its output.
  const lastRun = Int32Array.from(seq.runs.subarray(at, at + RUN_WORDS));
  return {
    ...meta(owner),
    sessionId: r.sessionId,
    label: owner.label,
    maxRounds: mt.max_rounds,
    accumulate: mt.context_growth === "accumulate",
    thinkTime: mt.think_time_us,
    timeout: owner.client.timeout ?? 0,
    input: owner.input,
    output: owner.output,
    prefix: owner.prefix,
    rng,
    status: ACTIVE,
    round: 0,
    contextLen: 0,
    context: null,
    contextRuns: 0,
    lastRun,
    lastNewInput: r.inputLen - owner.prefix.length,
  };
}

function meta(c: LoopClient): RequestMeta {
  return {
    tenantId: c.tenantId,
    sloClass: c.sloClass,
    model: c.model,
    sloTargetUs: c.client.slo_target_us ?? 0,
    ...(c.adapter !== undefined ? { adapter: c.adapter } : {}),
  };
}

/** One seed per virtual user, in client then user order, until the request cap is reached. */
function userSeeds(
  inp: LoopInputs,
  keptCount: number,
  blueprints: Map<string, Blueprint>,
  first: Map<WorkloadRequest, Blueprint>,
): WorkloadRequest[] {
  const seeds: WorkloadRequest[] = [];
  const userRng = new Rng(BigInt.asIntN(64, inp.seed + USER_SEED_OFFSET));
  for (const owner of inp.users) {
    const C = owner.client.concurrency ?? 0;
    const think = owner.client.think_time_us ?? 0;
    for (let u = 0; u < C; u++) {
      if (inp.cap > 0 && keptCount + seeds.length >= inp.cap) return seeds;
      const sessionId = `concurrency_${owner.client.id}_user_${u}`;
      // Users start spread over one think time so they do not all send at once.
      const arrival = think > 0 && C > 1 ? Math.floor((u * think) / C) : 0;
      const own = new Rng(userRng.int63());
      const rng = new Rng(userRng.int63());
      const inLen = owner.input.sample(own);
      const outLen = owner.output.sample(own);
      const tokens = drawnTokens(own, owner.prefix, inLen + outLen);
      const r = newRequest(
        owner,
        arrival,
        tokens,
        owner.prefix.length + inLen,
        outLen,
        false,
        sessionId,
        0,
        0,
        0,
        0,
        0,
        0,
      );
      const timeout = owner.client.timeout ?? 0;
      if (timeout > 0) r.deadline = arrival + timeout;
      const bp: Blueprint = {
        ...meta(owner),
        sessionId,
        label: owner.label,
        maxRounds: Infinity,
        accumulate: false,
        thinkTime: think,
        timeout,
        input: owner.input,
        output: owner.output,
        prefix: owner.prefix,
        rng,
        status: ACTIVE,
        round: 0,
        contextLen: 0,
        context: null,
        contextRuns: 0,
        lastRun: new Int32Array(RUN_WORDS),
        lastNewInput: inLen,
      };
      blueprints.set(sessionId, bp);
      first.set(r, bp);
      seeds.push(r);
    }
  }
  return seeds;
}

/** Stable merge of two arrival-ordered lists; `a` first at equal arrivals. */
function mergeByArrival(a: WorkloadRequest[], b: WorkloadRequest[]): WorkloadRequest[] {
  if (b.length === 0) return a;
  const out: WorkloadRequest[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.arrival <= b[j]!.arrival)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

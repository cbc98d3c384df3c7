// Closed-loop generation and the session manager (docs/behavior.md "Closed-loop load"), including
// the worked example of the specification.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createWorkload } from "../../../src/workload/gen/generator.js";
import { SessionManager, type EndedRequest } from "../../../src/workload/sessions/manager.js";
import type { SessionPlan } from "../../../src/workload/sessions/plan.js";
import type { WorkloadRequest } from "../../../src/core/workloadRequest.js";
import { findValidationFailure } from "../../../src/workload/spec/validate.js";
import { makeClient, makeSpec, dist, type ClientSpec } from "../../../src/workload/spec/types.js";
import { silentLogger } from "../../../src/util/log.js";

const constant = (v: number) => dist("constant", { value: v });

function usersSpec(fields: Partial<ClientSpec> = {}) {
  return makeSpec({
    seed: 7n,
    num_requests: 6,
    clients: [
      makeClient({
        id: "users",
        concurrency: 2,
        think_time_us: 100000,
        input_distribution: constant(100),
        output_distribution: constant(10),
        ...fields,
      }),
    ],
  });
}

function drain(src: { next(): WorkloadRequest | null }): WorkloadRequest[] {
  const out: WorkloadRequest[] = [];
  for (let r = src.next(); r !== null; r = src.next()) out.push(r);
  return out;
}

/** A request that completed normally: PI = L + O − 1. */
const completed = (w: WorkloadRequest): EndedRequest => ({
  id: w.id,
  inputLen: w.inputLen,
  outputLen: w.outputLen,
  pi: w.inputLen + w.outputLen - 1,
});

test("worked example: seeds, budget and follow-ups of two virtual users", () => {
  const wl = createWorkload(usersSpec());
  const plan = wl.sessions!;
  const seeds = drain(wl.source);
  assert.deepEqual(
    seeds.map((r) => [r.id, r.arrival, r.sessionId, r.inputLen, r.outputLen]),
    [
      ["request_0", 0, "concurrency_users_user_0", 100, 10],
      ["request_1", 50000, "concurrency_users_user_1", 100, 10],
    ],
  );
  assert.equal(plan.budget, 4);
  const m = new SessionManager(plan, silentLogger);
  const f1 = m.onEnd(completed(seeds[0]!), 31000, false)!;
  assert.equal(f1.id, "session_concurrency_users_user_0_round_1_1");
  assert.equal(f1.arrival, 131000);
  assert.equal(f1.roundIndex, 1);
  const f2 = m.onEnd(completed(seeds[1]!), 82000, false)!;
  assert.equal(f2.id, "session_concurrency_users_user_1_round_1_2");
  assert.equal(f2.arrival, 182000);
  const f3 = m.onEnd(completed(f1), 170000, false)!;
  const f4 = m.onEnd(completed(f2), 220000, false)!;
  assert.equal(f3.id, "session_concurrency_users_user_0_round_2_3");
  assert.equal(f4.id, "session_concurrency_users_user_1_round_2_4");
  // The fifth completion finds the budget spent: both sessions end with 6 requests in all.
  assert.equal(m.onEnd(completed(f3), 260000, false), null);
  assert.equal(m.onEnd(completed(f4), 300000, false), null);
  assert.equal(m.followUps, 4);
});

test("worked example: a user whose request fails is gone, the other uses the budget", () => {
  const wl = createWorkload(usersSpec());
  const seeds = drain(wl.source);
  const m = new SessionManager(wl.sessions!, silentLogger);
  assert.equal(m.onEnd(completed(seeds[1]!), 40000, true), null);
  let last = seeds[0]!;
  const ids: string[] = [];
  for (let k = 0; k < 5; k++) {
    const next = m.onEnd(completed(last), 100000 * (k + 1), false);
    if (next === null) break;
    ids.push(next.id);
    last = next;
  }
  assert.deepEqual(
    ids,
    [1, 2, 3, 4].map((k) => `session_concurrency_users_user_0_round_${k}_${k}`),
  );
});

function sessionSpec(closedLoop: boolean | undefined): ReturnType<typeof makeSpec> {
  const client = makeClient({
    id: "chat",
    rate_fraction: 1,
    arrival: { process: "poisson" },
    input_distribution: constant(128),
    output_distribution: constant(256),
    reasoning: {
      reason_ratio_distribution: { type: "", params: {}, file: "" },
      multi_turn: { max_rounds: 3, think_time_us: 1000, context_growth: "accumulate" },
    },
  });
  if (closedLoop !== undefined) client.closed_loop = closedLoop;
  return makeSpec({ seed: 3n, aggregate_rate: 1, num_requests: 3, clients: [client] });
}

test("worked example: accumulated context grows by one token less than each answer", () => {
  const wl = createWorkload(sessionSpec(true));
  const plan = wl.sessions!;
  const [r0, ...rest] = drain(wl.source);
  assert.equal(rest.length, 0, "later rounds are made by the session manager");
  assert.equal(r0!.inputLen, 128);
  const m = new SessionManager(plan, silentLogger);
  const r1 = m.onEnd(completed(r0!), 5000, false)!;
  assert.equal(r1.inputLen, 128 + 255 + 128);
  assert.equal(r1.arrival, 6000);
  const r2 = m.onEnd(completed(r1), 9000, false)!;
  assert.equal(r2.inputLen, 511 + 255 + 128);
  assert.equal(m.onEnd(completed(r2), 12000, false), null, "max_rounds reached");
  // The context holds round 0's input, then its first 255 answer tokens, then the new input.
  const t0 = r0!.tokenSeq.toArray();
  const t2 = r2.tokenSeq.toArray();
  assert.deepEqual(t2.subarray(0, 128 + 255), t0.subarray(0, 128 + 255));
  assert.deepEqual(t2.subarray(0, 511), r1.tokenSeq.toArray().subarray(0, 511));
});

test("multi-turn sessions stay open-loop unless closed_loop is true", () => {
  for (const flag of [undefined, false]) {
    const wl = createWorkload(sessionSpec(flag));
    assert.equal(wl.sessions, null);
    assert.deepEqual(
      drain(wl.source).map((r) => r.inputLen),
      [128, 512, 896],
    );
  }
});

test("virtual users stop at the request cap and draw their own streams", () => {
  const wl = createWorkload(usersSpec({ concurrency: 5 }), { maxRequests: 3 });
  const seeds = drain(wl.source);
  assert.equal(seeds.length, 3);
  assert.equal(wl.sessions!.budget, 0);
  assert.deepEqual(
    seeds.map((r) => r.arrival),
    [0, 20000, 40000],
  );
  assert.notDeepEqual(seeds[0]!.tokenSeq.toArray(), seeds[1]!.tokenSeq.toArray());
  const again = drain(createWorkload(usersSpec({ concurrency: 5 }), { maxRequests: 3 }).source);
  assert.deepEqual(again[2]!.tokenSeq.toArray(), seeds[2]!.tokenSeq.toArray());
});

test("follow-ups past the horizon are not made", () => {
  const wl = createWorkload(usersSpec(), { horizon: 120000 });
  const plan: SessionPlan = wl.sessions!;
  const seeds = drain(wl.source);
  const m = new SessionManager(plan, silentLogger);
  assert.equal(m.onEnd(completed(seeds[0]!), 30000, false), null);
});

test("closed-loop keys are validated with their messages", () => {
  const msg = (c: Partial<ClientSpec>, extra: Partial<ClientSpec> | null = null) => {
    const s = usersSpec(c);
    // A negative count makes the client open-loop, which needs an aggregate rate.
    if (extra === null) s.aggregate_rate = 1;
    if (extra !== null) s.clients.push(makeClient({ id: "other", ...extra }));
    return findValidationFailure(s)?.message ?? "";
  };
  assert.equal(msg({ concurrency: -1 }), "client[0]: concurrency must be non-negative, got -1");
  assert.equal(msg({ think_time_us: -5 }), "client[0]: think_time_us must be non-negative, got -5");
  assert.equal(msg({ rate_fraction: 0.5 }), "client[0]: concurrency and rate_fraction are mutually exclusive");
  assert.equal(
    findValidationFailure(usersSpec()),
    null,
    "virtual users need no rate, arrival process or aggregate_rate",
  );
  const open = {
    rate_fraction: 1,
    arrival: { process: "poisson" },
    input_distribution: constant(5),
    output_distribution: constant(5),
  };
  assert.equal(msg({}, open), "aggregate_rate must be positive, got 0.000000");
  const mixed = usersSpec();
  mixed.aggregate_rate = 1;
  mixed.clients.push(
    makeClient({
      id: "chat",
      ...open,
      reasoning: {
        reason_ratio_distribution: { type: "", params: {}, file: "" },
        multi_turn: { max_rounds: 2, think_time_us: 0, context_growth: "" },
      },
    }),
  );
  assert.equal(
    findValidationFailure(mixed)?.message,
    "concurrency clients and multi-turn clients cannot be mixed in the same spec: follow-up budget accounting does not support this combination",
  );
});

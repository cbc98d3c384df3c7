import assert from "node:assert/strict";
import { test } from "node:test";
import {
  createRequestSource,
  dist,
  generateAll,
  makeClient,
  makeSpec,
  parseWorkloadSpec,
  specFromDistribution,
  type ClientSpec,
  type WorkloadRequest,
} from "../../src/workload/index.js";
import { capturingLogger } from "./helpers.js";

const c1 = dist("constant", { value: 1 });

function sessionClient(extra: Partial<ClientSpec> = {}): ClientSpec {
  return makeClient({
    id: "chat",
    tenant_id: "acme",
    slo_class: "standard",
    rate_fraction: 1,
    arrival: { process: "constant" },
    input_distribution: dist("constant", { value: 128 }),
    output_distribution: dist("constant", { value: 256 }),
    reasoning: {
      reason_ratio_distribution: dist("constant", { value: 50 }),
      multi_turn: { max_rounds: 5, think_time_us: 5_000_000, context_growth: "accumulate" },
    },
    ...extra,
  });
}

test("reasoning layout: accumulate context, arrivals s + r·think + Σ prior outputs", () => {
  // 0.01 req/s: one session start every 100 s, so the first 5 requests are one session.
  const spec = makeSpec({ aggregate_rate: 0.01, num_requests: 5, clients: [sessionClient()] });
  const reqs = generateAll(spec, { seed: 3n });
  const s = 100_000_000;
  assert.deepStrictEqual(
    reqs.map((r) => r.arrival),
    [s, s + 5_000_256, s + 10_000_512, s + 15_000_768, s + 20_001_024],
  );
  assert.deepStrictEqual(
    reqs.map((r) => r.inputLen),
    [128, 512, 896, 1280, 1664],
  );
  assert.deepStrictEqual(
    reqs.map((r) => r.outputLen),
    [256, 256, 256, 256, 256],
  );
  assert.deepStrictEqual(
    reqs.map((r) => r.roundIndex),
    [0, 1, 2, 3, 4],
  );
  for (let r = 1; r < 5; r++) {
    const prev = reqs[r - 1]!;
    const cur = reqs[r]!;
    // Round r's prompt starts with round r−1's full context (input ++ output).
    assert.deepStrictEqual(cur.tokens.subarray(0, prev.tokens.length), prev.tokens);
    assert.equal(cur.sessionId, reqs[0]!.sessionId);
  }
  assert.match(reqs[0]!.sessionId, /^sess_\d+$/);
  for (const r of reqs) {
    assert.equal(r.reasonRatio, 0.5);
    assert.equal(r.streaming, false);
    assert.equal(r.tenantId, "acme");
    assert.equal(r.tokens.length, r.inputLen + r.outputLen);
  }
});

test("multi-turn worked example offsets (independent rounds too)", () => {
  const client = sessionClient({
    input_distribution: dist("constant", { value: 200 }),
    output_distribution: dist("constant", { value: 120 }),
    reasoning: {
      reason_ratio_distribution: dist("constant", { value: 40 }),
      multi_turn: { max_rounds: 4, think_time_us: 3_000_000, context_growth: "accumulate" },
    },
  });
  const reqs = generateAll(makeSpec({ aggregate_rate: 0.01, num_requests: 4, clients: [client] }));
  assert.deepStrictEqual(
    reqs.map((r) => r.inputLen),
    [200, 520, 840, 1160],
  );
  const s = reqs[0]!.arrival;
  assert.deepStrictEqual(
    reqs.map((r) => r.arrival - s),
    [0, 3_000_120, 6_000_240, 9_000_360],
  );
  assert.equal(reqs[0]!.reasonRatio, 0.4);
  const indep = generateAll(
    makeSpec({
      aggregate_rate: 0.01,
      num_requests: 4,
      clients: [
        {
          ...client,
          reasoning: { ...client.reasoning!, multi_turn: { ...client.reasoning!.multi_turn!, context_growth: "" } },
        },
      ],
    }),
  );
  assert.deepStrictEqual(
    indep.map((r) => r.inputLen),
    [200, 200, 200, 200],
  );
});

test("interleaved sessions come out in arrival order with a stable tie order", () => {
  // Sessions every 1 s, rounds 2 s apart: sessions overlap.
  const client = sessionClient({
    arrival: { process: "poisson" },
    reasoning: {
      reason_ratio_distribution: dist("", {}),
      multi_turn: { max_rounds: 6, think_time_us: 2_000_000, context_growth: "accumulate" },
    },
  });
  const spec = makeSpec({
    aggregate_rate: 3,
    num_requests: 400,
    clients: [client, { ...client, id: "b", tenant_id: "b" }],
  });
  const reqs = generateAll(spec);
  assert.equal(reqs.length, 400);
  for (let i = 1; i < reqs.length; i++) assert.ok(reqs[i]!.arrival >= reqs[i - 1]!.arrival);
  // Every session's rounds appear in round order.
  const lastRound = new Map<string, number>();
  for (const r of reqs) {
    const prev = lastRound.get(r.sessionId) ?? -1;
    assert.equal(r.roundIndex, prev + 1);
    lastRound.set(r.sessionId, r.roundIndex);
  }
});

test("a negative think time is rejected (docs/behavior.md#w23)", () => {
  const client = sessionClient({
    arrival: { process: "poisson" },
    reasoning: {
      reason_ratio_distribution: dist("", {}),
      multi_turn: { max_rounds: 4, think_time_us: -300_000, context_growth: "" },
    },
  });
  assert.throws(() => generateAll(makeSpec({ aggregate_rate: 5, num_requests: 200, clients: [client] })), {
    message: "invalid workload spec: client[0].reasoning.multi_turn.think_time_us must be >= 0, got -300000",
  });
});

test("distribution defaults: 100 requests at 1,000,000·k, lengths in [2, 7000], IDs request_0…", () => {
  const reqs = generateAll(specFromDistribution({}));
  assert.equal(reqs.length, 100);
  reqs.forEach((r, i) => {
    assert.equal(r.arrival, 1_000_000 * (i + 1));
    assert.equal(r.id, `request_${i}`);
    assert.ok(r.inputLen >= 2 && r.inputLen <= 7000);
    assert.ok(r.outputLen >= 2 && r.outputLen <= 7000);
  });
});

test("determinism: same seed → identical requests; different seed → different tokens", () => {
  const spec = parseWorkloadSpec(`
version: "2"
seed: 5
aggregate_rate: 50
num_requests: 300
clients:
  - {id: a, rate_fraction: 1, arrival: {process: gamma, cv: 2}, input_distribution: {type: exponential, params: {mean: 100}}, output_distribution: {type: exponential, params: {mean: 20}}}
  - {id: b, rate_fraction: 2, prefix_group: g, arrival: {process: weibull, cv: 0.7}, input_distribution: {type: gaussian, params: {mean: 50, std_dev: 10, min: 1, max: 100}}, output_distribution: {type: constant, params: {value: 9}}}
`);
  const a = generateAll(spec);
  const b = generateAll(spec);
  assert.deepStrictEqual(a, b);
  const c = generateAll(spec, { seed: 6n });
  assert.notDeepStrictEqual(
    a.map((r) => r.tokens),
    c.map((r) => r.tokens),
  );
});

test("client independence: appending a client leaves earlier clients unchanged (before truncation)", () => {
  const mk = (tenant: string, process: string): ClientSpec =>
    makeClient({
      tenant_id: tenant,
      rate_fraction: 1,
      prefix_group: tenant === "b" ? "g" : "",
      arrival: { process, cv: 1.5 },
      input_distribution: dist("exponential", { mean: 64 }),
      output_distribution: dist("gaussian", { mean: 30, std_dev: 10, min: 1, max: 100 }),
    });
  // λ per client stays 1 req/s: aggregate grows with the client count.
  const two = generateAll(
    makeSpec({ seed: 9n, aggregate_rate: 2, horizon: 200_000_000, clients: [mk("a", "gamma"), mk("b", "weibull")] }),
  );
  const three = generateAll(
    makeSpec({
      seed: 9n,
      aggregate_rate: 3,
      horizon: 200_000_000,
      clients: [mk("a", "gamma"), mk("b", "weibull"), mk("c", "poisson")],
    }),
  );
  const strip = (rs: WorkloadRequest[], t: string) =>
    rs
      .filter((r) => r.tenantId === t)
      .map((r) => ({ arrival: r.arrival, inputLen: r.inputLen, outputLen: r.outputLen, tokens: r.tokens }));
  for (const t of ["a", "b"]) {
    const x = strip(two, t);
    assert.ok(x.length > 100);
    assert.deepStrictEqual(strip(three, t), x);
  }
});

test("prefix groups: members share the first L tokens; default 50; the first member sets L", () => {
  const spec = makeSpec({
    aggregate_rate: 100,
    num_requests: 200,
    clients: [
      makeClient({
        tenant_id: "p",
        rate_fraction: 1,
        prefix_group: "sys",
        prefix_length: 64,
        arrival: { process: "poisson" },
        input_distribution: dist("constant", { value: 10 }),
        output_distribution: c1,
      }),
      makeClient({
        tenant_id: "f",
        rate_fraction: 1,
        prefix_group: "sys",
        prefix_length: 999,
        arrival: { process: "poisson" },
        input_distribution: dist("constant", { value: 5 }),
        output_distribution: c1,
      }),
      makeClient({
        tenant_id: "r",
        rate_fraction: 1,
        prefix_group: "rag",
        arrival: { process: "poisson" },
        input_distribution: dist("empirical", { "256": 0.5, "1024": 0.5 }),
        output_distribution: c1,
      }),
      makeClient({
        tenant_id: "n",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: dist("constant", { value: 7 }),
        output_distribution: c1,
      }),
    ],
  });
  const reqs = generateAll(spec);
  const by = (t: string) => reqs.filter((r) => r.tenantId === t);
  const sys = by("p")[0]!.tokens.subarray(0, 64);
  for (const r of [...by("p"), ...by("f")]) assert.deepStrictEqual(r.tokens.subarray(0, 64), sys);
  assert.ok(by("p").every((r) => r.inputLen === 74));
  assert.ok(by("f").every((r) => r.inputLen === 69));
  assert.ok(by("r").every((r) => r.inputLen === 306 || r.inputLen === 1074));
  const rag = by("r")[0]!.tokens.subarray(0, 50);
  for (const r of by("r")) assert.deepStrictEqual(r.tokens.subarray(0, 50), rag);
  assert.ok(by("n").every((r) => r.inputLen === 7));
});

test("horizon cuts arrivals at t ≥ H; H ≤ 0 yields nothing without validation", () => {
  const spec = makeSpec({
    aggregate_rate: 1,
    clients: [
      makeClient({
        rate_fraction: 1,
        arrival: { process: "constant" },
        input_distribution: c1,
        output_distribution: c1,
      }),
    ],
  });
  assert.deepStrictEqual(
    generateAll(spec, { horizon: 3_000_000 }).map((r) => r.arrival),
    [1_000_000, 2_000_000],
  );
  assert.deepStrictEqual(
    generateAll(spec, { horizon: 3_000_001 }).map((r) => r.arrival),
    [1_000_000, 2_000_000, 3_000_000],
  );
  assert.deepStrictEqual(generateAll({ aggregate_rate: -1 }, { horizon: 0 }), []);
  assert.throws(() => generateAll(spec, { horizon: 10, maxRequests: -1 }), /maxRequests must be non-negative, got -1/);
  assert.throws(
    () => generateAll(spec, { horizon: Infinity, maxRequests: 0 }),
    /Workload requires either num_requests or --horizon to bound generation/,
  );
  // The CLI default 2^63−1 counts as unbounded.
  assert.throws(() => generateAll(spec, { horizon: 2 ** 63 }), /Workload requires/);
});

test("late session rounds past the horizon are still generated; starts are cut", () => {
  const spec = makeSpec({ aggregate_rate: 0.5, clients: [sessionClient()] });
  const reqs = generateAll(spec, { horizon: 5_000_000 });
  // Starts at 2 s and 4 s (6 s ≥ H), each with all 5 rounds.
  assert.equal(reqs.length, 10);
  assert.ok(reqs.some((r) => r.arrival > 5_000_000));
});

test("lifecycle windows thin arrivals; docs/behavior.md#w7: num_requests-only bound terminates", () => {
  const client = makeClient({
    rate_fraction: 1,
    arrival: { process: "constant" },
    input_distribution: c1,
    output_distribution: c1,
    lifecycle: {
      windows: [
        { start_us: 2_500_000, end_us: 5_000_000 },
        { start_us: 9_000_000, end_us: 9_000_001 },
      ],
    },
  });
  const reqs = generateAll(makeSpec({ aggregate_rate: 1, num_requests: 100, clients: [client] }));
  assert.deepStrictEqual(
    reqs.map((r) => r.arrival),
    [3_000_000, 4_000_000, 9_000_000],
  );
  // A window before the first possible arrival (tick 1): the client is never active, and stops.
  const never = { ...client, lifecycle: { windows: [{ start_us: 0, end_us: 1 }] } };
  assert.deepStrictEqual(generateAll(makeSpec({ aggregate_rate: 1, num_requests: 10, clients: [never] })), []);
  const sessions = sessionClient({ lifecycle: { windows: [{ start_us: 0, end_us: 1 }] } });
  assert.deepStrictEqual(generateAll(makeSpec({ aggregate_rate: 1, num_requests: 10, clients: [sessions] })), []);
  // No windows at all, or sessions without rounds, are rejected (docs/behavior.md#w23).
  assert.throws(
    () =>
      generateAll(
        makeSpec({ aggregate_rate: 1, num_requests: 10, clients: [{ ...client, lifecycle: { windows: [] } }] }),
      ),
    {
      message:
        "invalid workload spec: client[0].lifecycle: at least one window required (without one the client never sends)",
    },
  );
  const noRounds = sessionClient({
    reasoning: {
      reason_ratio_distribution: dist("", {}),
      multi_turn: { max_rounds: 0, think_time_us: 0, context_growth: "" },
    },
  });
  assert.throws(() => generateAll(makeSpec({ aggregate_rate: 1, num_requests: 10, clients: [noRounds] })), {
    message: "invalid workload spec: client[0].reasoning.multi_turn.max_rounds must be > 0, got 0",
  });
});

test("per-client cap 2N counts rounds (docs/behavior.md#w20)", () => {
  // N = 3: K = 6 rounds → the client stops after its second 5-round session; with a long think
  // time the earliest 3 requests are the 3 session starts only if a third session existed.
  const client = sessionClient({
    reasoning: {
      reason_ratio_distribution: dist("", {}),
      multi_turn: { max_rounds: 5, think_time_us: 100_000_000, context_growth: "" },
    },
  });
  const reqs = generateAll(makeSpec({ aggregate_rate: 1, num_requests: 3, clients: [client] }));
  assert.deepStrictEqual(
    reqs.map((r) => r.arrival),
    [1_000_000, 2_000_000, 101_000_256],
  );
});

test("cohorts: members, rate split per cohort, spike window", () => {
  const spec = parseWorkloadSpec(`
aggregate_rate: 20
horizon: 60000000
clients:
  - {id: base, rate_fraction: 0.5, arrival: {process: constant}, input_distribution: {type: constant, params: {value: 3}}, output_distribution: {type: constant, params: {value: 2}}}
cohorts:
  - id: flash
    population: 10
    tenant_id: flash
    rate_fraction: 0.5
    arrival: {process: constant}
    input_distribution: {type: constant, params: {value: 4}}
    output_distribution: {type: constant, params: {value: 2}}
    spike: {start_time_us: 20000000, duration_us: 10000000}
`);
  const reqs = generateAll(spec);
  const flash = reqs.filter((r) => r.tenantId === "flash");
  // Each member: 1 req/s inside [20 s, 30 s) → 10 arrivals each.
  assert.equal(flash.length, 100);
  assert.ok(flash.every((r) => r.arrival >= 20_000_000 && r.arrival < 30_000_000));
  assert.equal(reqs.filter((r) => r.tenantId === "").length, 599);
});

test("multimodal: per-modality counts, total input, output drawn after inputs", () => {
  const spec = parseWorkloadSpec(`
aggregate_rate: 10
num_requests: 50
category: multimodal
clients:
  - id: mm
    rate_fraction: 1
    prefix_group: sys
    prefix_length: 8
    arrival: {process: poisson}
    input_distribution: {type: constant, params: {value: 1}}
    output_distribution: {type: constant, params: {value: 5}}
    multimodal:
      text_distribution: {type: constant, params: {value: 20}}
      image_distribution: {type: constant, params: {value: 100}}
      image_count_distribution: {type: empirical, params: {"1": 1, "2": 1}}
      video_distribution: {type: constant, params: {value: 50}}
      video_count_distribution: {type: gaussian, params: {mean: 0, std_dev: 0, min: 0, max: 0}}
`);
  const reqs = generateAll(spec);
  for (const r of reqs) {
    assert.equal(r.textTokens, 20);
    assert.ok(r.imageTokens === 100 || r.imageTokens === 200);
    assert.equal(r.audioTokens, 0); // no audio distributions → unused
    assert.equal(r.videoTokens, 0);
    assert.equal(r.inputLen, 8 + r.textTokens + r.imageTokens);
    assert.equal(r.outputLen, 5);
  }
});

test("inference-perf expansion: P×U clients per stage, each in its stage window at its stage rate", () => {
  const spec = parseWorkloadSpec(`
seed: 1
inference_perf:
  stages: [{rate: 8, duration: 10}, {rate: 20, duration: 10}]
  shared_prefix: {num_unique_system_prompts: 2, num_users_per_system_prompt: 3, system_prompt_len: 0, question_len: 40, output_len: 8, enable_multi_turn_chat: false}
`);
  // No cap or horizon: the stages bound generation. All batch, prefix 50 (system_prompt_len 0).
  const reqs = generateAll(spec);
  const first = reqs.filter((r) => r.arrival < 10_000_000).length;
  const second = reqs.length - first;
  // Poisson counts with means 80 and 200 (the old mean-rate behavior gave 140 and 140).
  assert.ok(Math.abs(first - 80) < 4 * Math.sqrt(80), String(first));
  assert.ok(Math.abs(second - 200) < 4 * Math.sqrt(200), String(second));
  assert.ok(reqs.every((r) => r.sloClass === "batch" && r.inputLen === 90 && r.arrival < 20_000_000));
  assert.deepStrictEqual([...new Set(reqs.map((r) => r.tenantId))].sort(), ["prompt-0", "prompt-1"]);
});

test("inference-perf validation messages", () => {
  const bad = parseWorkloadSpec(`
inference_perf:
  stages: [{rate: 8, duration: 0}]
  shared_prefix: {num_unique_system_prompts: 1, num_users_per_system_prompt: 1}
`);
  assert.throws(
    () => createRequestSource(bad, { maxRequests: 5 }),
    (e: Error) =>
      e.message.startsWith(
        "expanding inference-perf spec: validating inference-perf spec: inference_perf.stages[0]: duration must be positive, got 0",
      ),
  );
});

test("servegen data directory as a spec source", async () => {
  const { FIXTURES } = await import("./helpers.js");
  const spec = makeSpec({
    aggregate_rate: 10,
    num_requests: 100,
    servegen_data: { path: FIXTURES + "servegen", span_start: 0, span_end: 0 },
  });
  const { logger } = capturingLogger();
  const reqs = generateAll(spec, { logger });
  assert.equal(reqs.length, 100);
  const tenants = new Set(reqs.map((r) => r.tenantId));
  assert.deepStrictEqual([...tenants].sort(), ["chunk-1", "chunk-10"]);
  for (const r of reqs) {
    if (r.tenantId === "chunk-1") assert.ok([100, 200, 400].includes(r.inputLen) && r.outputLen === 50);
    else assert.ok(r.inputLen === 300 && (r.outputLen === 30 || r.outputLen === 60));
  }
});

test("negative lengths are an error naming the client and distribution", () => {
  const spec = makeSpec({
    aggregate_rate: 1,
    num_requests: 3,
    clients: [
      makeClient({
        id: "neg",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: dist("gaussian", { mean: 1, std_dev: 1, min: -3, max: -3 }),
        output_distribution: c1,
      }),
    ],
  });
  // A negative bound is rejected by validation (docs/behavior.md#w23), before the sampler is built.
  assert.throws(() => createRequestSource(spec), {
    message: "invalid workload spec: client[0].input_distribution.params.min must be >= 0, got -3.000000",
  });
  // Zero-length samples are allowed.
  const zero = { ...spec, clients: [{ ...spec.clients[0]!, input_distribution: dist("empirical", { "0": 1 }) }] };
  assert.ok(generateAll(zero).every((r) => r.inputLen === 0));
});

test("sampler build errors are prefixed with the client and role", () => {
  const spec = makeSpec({
    aggregate_rate: 1,
    num_requests: 3,
    clients: [
      makeClient({
        id: "x",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: dist("gaussian", { mean: 1 }),
        output_distribution: c1,
      }),
    ],
  });
  assert.throws(() => createRequestSource(spec), {
    message: 'client "x" input distribution: distribution requires parameter "std_dev"',
  });
  const r = {
    ...spec.clients[0]!,
    input_distribution: c1,
    reasoning: {
      reason_ratio_distribution: dist("weird", {}),
      multi_turn: { max_rounds: 1, think_time_us: 0, context_growth: "" },
    },
  };
  // Checked by validation, which BLIS leaves to the sampler builder (docs/behavior.md#w23).
  assert.throws(() => createRequestSource({ ...spec, clients: [r] }), {
    message:
      'invalid workload spec: client[0].reasoning.reason_ratio_distribution: unknown distribution type "weird"; valid: gaussian, exponential, pareto_lognormal, empirical, constant',
  });
});

test("the user's spec object is not modified by generation", () => {
  const spec = parseWorkloadSpec(`
version: "1"
aggregate_rate: 10
num_requests: 5
clients:
  - {id: a, slo_class: realtime, rate_fraction: 1, arrival: {process: poisson}, input_distribution: {type: constant, params: {value: 2}}, output_distribution: {type: constant, params: {value: 2}}}
`);
  const before = structuredClone(spec);
  generateAll(spec);
  assert.deepStrictEqual(spec, before);
});

// inference-perf stages run at their own rates, multi-turn chat keeps fixed-length rounds after
// a shared system prompt, and specs whose clients all have finite windows bound themselves.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { cli, clusterBlock } from "../helpers/cli.js";
import {
  BOUND_ERROR,
  checkGenerationBound,
  convertInferencePerf,
  createRequestSource,
  dist,
  expandInferencePerf,
  findInferencePerfFailure,
  generateAll,
  generationEnd,
  makeClient,
  makeSpec,
  parseWorkloadSpec,
  serializeWorkloadSpec,
  type ClientSpec,
  type CohortSpec,
  type WorkloadRequest,
} from "../../src/workload/index.js";
import { capturingLogger } from "./helpers.js";

const SECOND = 1_000_000;

/** Two stages, 8 req/s × 60 s then 20 req/s × 60 s, over 4 system prompts × 5 users. */
function twoStageYaml(seed: number, multiTurn: boolean, extra = ""): string {
  return `seed: ${seed}
${extra}inference_perf:
  stages:
    - {rate: 8, duration: 60}
    - {rate: 20, duration: 60}
  shared_prefix:
    num_unique_system_prompts: 4
    num_users_per_system_prompt: 5
    system_prompt_len: 100
    question_len: 447
    output_len: 248
    enable_multi_turn_chat: ${multiTurn}
`;
}

function countIn(reqs: readonly WorkloadRequest[], from: number, to: number): number {
  return reqs.filter((r) => r.arrival >= from && r.arrival < to).length;
}

test("two stages: each stage's arrivals match its own rate, not the mean rate", () => {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  let first = 0;
  let second = 0;
  for (const seed of seeds) {
    // No num_requests and no horizon: the stages bound generation.
    const reqs = generateAll(parseWorkloadSpec(twoStageYaml(seed, false)));
    const a = countIn(reqs, 0, 60 * SECOND);
    const b = countIn(reqs, 60 * SECOND, 120 * SECOND);
    assert.equal(a + b, reqs.length, "nothing arrives after the last stage");
    // Poisson counts with means 480 and 1200: within 4 standard deviations per seed.
    assert.ok(Math.abs(a - 480) < 4 * Math.sqrt(480), `seed ${seed}: stage 0 had ${a}`);
    assert.ok(Math.abs(b - 1200) < 4 * Math.sqrt(1200), `seed ${seed}: stage 1 had ${b}`);
    first += a;
    second += b;
  }
  // Pooled rates over 10 × 60 s per stage, within 3 standard errors of 8 and 20 req/s.
  const n = seeds.length * 60;
  assert.ok(Math.abs(first / n - 8) < 3 * Math.sqrt(8 / n), `stage 0 rate ${first / n}`);
  assert.ok(Math.abs(second / n - 20) < 3 * Math.sqrt(20 / n), `stage 1 rate ${second / n}`);
});

test("expansion: P×U clients per stage with the stage's window and rate share; rates sum", () => {
  const spec = parseWorkloadSpec(twoStageYaml(1, false));
  const e = expandInferencePerf(spec.inference_perf!);
  assert.equal(e.aggregateRate, 28);
  assert.equal(e.clients.length, 40);
  assert.equal(e.clients[0]!.id, "stage-0-prompt-0-user-0");
  assert.equal(e.clients[39]!.id, "stage-1-prompt-3-user-4");
  const share = (stage: number): number =>
    e.clients.slice(stage * 20, stage * 20 + 20).reduce((s, c) => s + c.rate_fraction, 0);
  // With aggregate_rate = 28, stage i's clients get 28 · share_i / 28 = rate_i.
  assert.ok(Math.abs(share(0) - 8) < 1e-9 && Math.abs(share(1) - 20) < 1e-9);
  for (const c of e.clients.slice(0, 20))
    assert.deepStrictEqual(c.lifecycle, { windows: [{ start_us: 0, end_us: 60 * SECOND }] });
  for (const c of e.clients.slice(20))
    assert.deepStrictEqual(c.lifecycle, { windows: [{ start_us: 60 * SECOND, end_us: 120 * SECOND }] });
  assert.equal(generationEnd(spec), 120 * SECOND);
  // The client guard counts every stage's clients.
  const big = parseWorkloadSpec(
    twoStageYaml(1, false).replace("num_users_per_system_prompt: 5", "num_users_per_system_prompt: 150000"),
  );
  assert.match(
    findInferencePerfFailure(big.inference_perf!)!.message,
    /4 system prompts x 150000 users x 2 stages = 1200000 clients exceeds maximum/,
  );
});

test("one stage: ends with its duration, ids unchanged, no bound needed", () => {
  const spec = parseWorkloadSpec(`
seed: 3
inference_perf:
  stages: [{rate: 10, duration: 30}]
  shared_prefix: {num_unique_system_prompts: 2, num_users_per_system_prompt: 3, system_prompt_len: 10, question_len: 20, output_len: 5}
`);
  const e = expandInferencePerf(spec.inference_perf!);
  assert.equal(e.aggregateRate, 10);
  assert.deepStrictEqual(e.clients.map((c) => c.id).slice(0, 2), ["prompt-0-user-0", "prompt-0-user-1"]);
  assert.deepStrictEqual(e.clients[0]!.lifecycle, { windows: [{ start_us: 0, end_us: 30 * SECOND }] });
  const reqs = generateAll(spec);
  assert.ok(reqs.every((r) => r.arrival < 30 * SECOND));
  assert.ok(Math.abs(reqs.length - 300) < 4 * Math.sqrt(300), String(reqs.length));
});

test("a file's aggregate_rate cannot rescale the stages: the sum of stage rates wins, with a warning", () => {
  const { logger, lines } = capturingLogger();
  const withRate = generateAll(parseWorkloadSpec(twoStageYaml(4, false, "aggregate_rate: 14\n")), { logger });
  assert.deepStrictEqual(withRate, generateAll(parseWorkloadSpec(twoStageYaml(4, false))));
  assert.ok(
    lines.some((l) => l.includes("overriding aggregate_rate 14 with the sum of the stage rates 28")),
    lines.join("\n"),
  );
});

test("multi-turn chat: fixed-length rounds after a system prompt shared by the prompt's users", () => {
  const spec = parseWorkloadSpec(twoStageYaml(5, true));
  const e = expandInferencePerf(spec.inference_perf!);
  assert.equal(e.category, "reasoning");
  assert.deepStrictEqual(e.clients[0]!.reasoning!.multi_turn, {
    max_rounds: 5,
    think_time_us: 500_000,
    context_growth: "",
  });
  assert.equal(e.clients[0]!.prefix_group, "prompt-0");

  const reqs = generateAll(spec);
  const prefixOf = new Map<string, Int32Array>();
  const sessions = new Map<string, WorkloadRequest[]>();
  for (const r of reqs) {
    // Every round: the 100-token system prompt plus the 447-token question, nothing accumulated.
    assert.equal(r.inputLen, 100 + 447);
    assert.equal(r.outputLen, 248);
    const prefix = r.tokens.subarray(0, 100);
    const seen = prefixOf.get(r.tenantId);
    if (seen === undefined) prefixOf.set(r.tenantId, prefix);
    else assert.deepStrictEqual(prefix, seen, `${r.tenantId} shares one system prompt across users, stages and rounds`);
    const list = sessions.get(r.sessionId) ?? [];
    list.push(r);
    sessions.set(r.sessionId, list);
  }
  assert.equal(prefixOf.size, 4);
  assert.notDeepStrictEqual(prefixOf.get("prompt-0"), prefixOf.get("prompt-1"));

  const starts: number[] = [];
  for (const rounds of sessions.values()) {
    assert.deepStrictEqual(
      rounds.map((r) => r.roundIndex),
      [0, 1, 2, 3, 4],
    );
    const s = rounds[0]!.arrival;
    // Think time 0.5 s plus the 1-tick-per-output-token heuristic.
    assert.deepStrictEqual(
      rounds.map((r) => r.arrival - s),
      [0, 1, 2, 3, 4].map((k) => k * (500_000 + 248)),
    );
    // Rounds do not carry the previous round's prompt or answer.
    assert.notDeepStrictEqual(rounds[1]!.tokens.subarray(100, 200), rounds[0]!.tokens.subarray(100, 200));
    starts.push(s);
  }
  // Session starts follow the stage rates and stop with the last stage.
  assert.ok(starts.every((s) => s < 120 * SECOND));
  const a = starts.filter((s) => s < 60 * SECOND).length;
  const b = starts.length - a;
  assert.ok(Math.abs(a - 480) < 4 * Math.sqrt(480), `stage 0 sessions ${a}`);
  assert.ok(Math.abs(b - 1200) < 4 * Math.sqrt(1200), `stage 1 sessions ${b}`);
});

function windowed(id: string, start: number, end: number, extra: Partial<ClientSpec> = {}): ClientSpec {
  return makeClient({
    id,
    rate_fraction: 1,
    arrival: { process: "constant" },
    input_distribution: dist("constant", { value: 4 }),
    output_distribution: dist("constant", { value: 2 }),
    lifecycle: { windows: [{ start_us: start, end_us: end }] },
    ...extra,
  });
}

test("finite lifecycle windows on every client bound the spec; one open-ended client does not", () => {
  const session = windowed("chat", 10 * SECOND, 14 * SECOND, {
    prefix_group: "sys",
    prefix_length: 6,
    reasoning: {
      reason_ratio_distribution: dist("", {}),
      multi_turn: { max_rounds: 3, think_time_us: 1000, context_growth: "accumulate" },
    },
  });
  const spec = makeSpec({ aggregate_rate: 2, clients: [windowed("a", 2 * SECOND, 5 * SECOND), session] });
  assert.equal(generationEnd(spec), 14 * SECOND);
  checkGenerationBound(0, Infinity, spec);
  checkGenerationBound(0, 2 ** 63, spec);
  const reqs = generateAll(spec);
  // Each client runs at 1 req/s: "a" keeps 2, 3, 4 s; "chat" starts sessions at 10…13 s only.
  assert.deepStrictEqual(
    reqs.filter((r) => r.sessionId === "").map((r) => r.arrival),
    [2, 3, 4].map((k) => k * SECOND),
  );
  const rounds = reqs.filter((r) => r.sessionId !== "");
  assert.deepStrictEqual(
    rounds.filter((r) => r.roundIndex === 0).map((r) => r.arrival),
    [10, 11, 12, 13].map((k) => k * SECOND),
  );
  // Accumulated rounds keep the group prefix once, at the front: 6 + 4, then + 2 + 4 per round.
  assert.deepStrictEqual(
    rounds.slice(0, 3).map((r) => r.inputLen),
    [10, 16, 22],
  );
  assert.deepStrictEqual(rounds[2]!.tokens.subarray(0, rounds[1]!.tokens.length), rounds[1]!.tokens);

  // A cohort with a spike pattern is bounded; one without a pattern is always active.
  const cohort: CohortSpec = {
    id: "c",
    population: 2,
    tenant_id: "",
    slo_class: "",
    model: "",
    arrival: { process: "constant" },
    input_distribution: dist("constant", { value: 4 }),
    output_distribution: dist("constant", { value: 2 }),
    prefix_group: "",
    streaming: false,
    rate_fraction: 1,
  };
  const spiked = makeSpec({
    aggregate_rate: 2,
    clients: spec.clients,
    cohorts: [{ ...cohort, spike: { start_time_us: 0, duration_us: 20 * SECOND } }],
  });
  assert.equal(generationEnd(spiked), 20 * SECOND);
  assert.throws(() => generateAll(makeSpec({ aggregate_rate: 2, clients: spec.clients, cohorts: [cohort] })), {
    message: BOUND_ERROR,
  });

  const open = makeClient({
    id: "open",
    rate_fraction: 1,
    arrival: { process: "constant" },
    input_distribution: dist("constant", { value: 4 }),
    output_distribution: dist("constant", { value: 2 }),
  });
  assert.throws(() => createRequestSource(makeSpec({ aggregate_rate: 2, clients: [...spec.clients, open] })), {
    message: BOUND_ERROR,
  });
  assert.throws(() => checkGenerationBound(0, Infinity), { message: BOUND_ERROR });
});

test("convert inference-perf output, re-loaded and run, reproduces the staged run", () => {
  const dir = mkdtempSync(join(tmpdir(), "blis-ip-"));
  for (const multiTurn of [false, true]) {
    const file = join(dir, `staged-${multiTurn}.yaml`);
    writeFileSync(file, twoStageYaml(11, multiTurn));
    const converted = parseWorkloadSpec(serializeWorkloadSpec(convertInferencePerf(file)));
    assert.equal(converted.inference_perf, undefined);
    assert.equal(converted.num_requests, 0);
    assert.equal(converted.horizon, 0);
    assert.equal(generationEnd(converted), 120 * SECOND);
    const direct = generateAll(parseWorkloadSpec(twoStageYaml(11, multiTurn)));
    assert.deepStrictEqual(generateAll(converted), direct);
  }
});

test("blis run: a staged spec ends without num_requests or --horizon", async () => {
  const dir = mkdtempSync(join(tmpdir(), "blis-ip-run-"));
  const file = join(dir, "staged.yaml");
  const yaml = `seed: 2
inference_perf:
  stages: [{rate: 4, duration: 5}, {rate: 10, duration: 5}]
  shared_prefix: {num_unique_system_prompts: 2, num_users_per_system_prompt: 2, system_prompt_len: 32, question_len: 64, output_len: 16}
`;
  writeFileSync(file, yaml);
  const r = await cli(["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--workload-spec", file]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const expected = generateAll(parseWorkloadSpec(yaml), { seed: 2n }).length;
  assert.equal(clusterBlock(r.stdout)["completed_requests"], expected);
});

test("convert inference-perf --rate-schedule: one client per prompt and user, its schedule following the stages", async () => {
  const dir = mkdtempSync(join(tmpdir(), "blis-ip-sched-"));
  const file = join(dir, "staged.yaml");
  writeFileSync(file, twoStageYaml(7, false));
  const converted = parseWorkloadSpec(serializeWorkloadSpec(convertInferencePerf(file, undefined, true)));
  assert.equal(converted.clients.length, 20);
  assert.equal(converted.aggregate_rate, 0);
  assert.equal(converted.clients[7]!.id, "prompt-1-user-2");
  for (const c of converted.clients) {
    assert.equal(c.rate_fraction, 0);
    assert.equal(c.lifecycle, undefined);
    assert.deepStrictEqual(c.rate_schedule, [
      { at_s: 0, rate: 8 / 20 },
      { at_s: 60, rate: 20 / 20 },
      { at_s: 120, rate: 0 },
    ]);
  }
  assert.equal(converted.clients[7]!.prefix_group, "prompt-1");
  assert.equal(generationEnd(converted), 120 * SECOND);
  // Poisson counts with means 480 and 1200, within 4 standard deviations; nothing after 120 s.
  const reqs = generateAll(converted);
  const a = countIn(reqs, 0, 60 * SECOND);
  const b = countIn(reqs, 60 * SECOND, 120 * SECOND);
  assert.equal(a + b, reqs.length);
  assert.ok(Math.abs(a - 480) < 4 * Math.sqrt(480), `stage 0 had ${a}`);
  assert.ok(Math.abs(b - 1200) < 4 * Math.sqrt(1200), `stage 1 had ${b}`);

  const r = await cli(["convert", "inference-perf", "--spec", file, "--rate-schedule"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.equal(r.stdout, serializeWorkloadSpec(convertInferencePerf(file, undefined, true)));
});

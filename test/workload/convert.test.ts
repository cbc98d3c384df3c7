import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { Command } from "commander";
import { registerWorkloadCommands } from "../../src/cli/workloadCommands.js";
import { UserError } from "../../src/util/errors.js";
import {
  composeSpecs,
  convertCsvTrace,
  convertInferencePerf,
  convertPreset,
  convertScenario,
  convertServeGen,
  dist,
  formatTraceV2Data,
  formatTraceV2Header,
  generateAll,
  loadTraceV2,
  makeClient,
  makeSpec,
  parseTraceV2Data,
  parseTraceV2Header,
  parseWorkloadSpec,
  readPresetsFromDefaults,
  SCENARIO_NAMES,
  serializeWorkloadSpec,
  specFromCsvTraceMode,
  specFromDistribution,
  specFromPreset,
  traceReplaySource,
  type WorkloadSpec,
} from "../../src/workload/index.js";
import { capturingLogger, EXAMPLES, FIXTURES, ROOT } from "./helpers.js";

const presets = readPresetsFromDefaults(ROOT + "data/defaults.yaml");

function roundTrip(spec: WorkloadSpec): void {
  const text = serializeWorkloadSpec(spec);
  assert.deepStrictEqual(parseWorkloadSpec(text), spec, text);
}

test("presets from defaults.yaml", () => {
  assert.deepStrictEqual(Object.keys(presets).sort(), ["chatbot", "contentgen", "multidoc", "summarization"]);
  assert.equal(presets["multidoc"]!.prefix_tokens, 0);
  assert.equal(presets["chatbot"]!.output_tokens_min, 1);
});

test("convert preset: spec shape, errors, round trip, same requests as run --workload", () => {
  const spec = convertPreset("chatbot", presets, 2.5, 40);
  assert.equal(spec.clients[0]!.id, "preset-chatbot");
  // The seed run --workload uses by default, not BLIS's 0 (docs/behavior.md#w25).
  assert.equal(spec.seed, 42n);
  assert.equal(convertPreset("chatbot", presets, 2.5, 40, 7n).seed, 7n);
  assert.equal(spec.category, "language");
  assert.deepStrictEqual(spec.clients[0]!.input_distribution.params, { mean: 256, std_dev: 100, min: 2, max: 800 });
  roundTrip(spec);
  assert.throws(() => convertPreset("chatbot", presets, 0), { message: "--rate must be a finite value > 0, got 0" });
  assert.throws(() => convertPreset("chatbot", presets, 1, 0), { message: "--num-requests must be > 0, got 0" });
  assert.throws(() => convertPreset("nope", presets), {
    message: 'Unknown preset "nope". Check defaults.yaml for available workloads.',
  });
  // run --workload chatbot and run --workload-spec <converted> with the same --seed agree.
  const run = generateAll(specFromPreset("chatbot", presets, 2.5, 40, 7n));
  const viaSpec = generateAll(parseWorkloadSpec(serializeWorkloadSpec(spec)), { seed: 7n });
  assert.deepStrictEqual(viaSpec, run);
  const withPrefix = convertPreset("p", { p: { ...presets["chatbot"], prefix_tokens: 32 } });
  assert.equal(withPrefix.clients[0]!.prefix_group, "shared");
  assert.equal(withPrefix.clients[0]!.prefix_length, 32);
  assert.throws(() => specFromPreset("x", presets, 1, 1, 1n), {
    message: 'Undefined workload "x". Use one among (chatbot, summarization, contentgen, multidoc) or --workload-spec',
  });
  assert.throws(() => specFromPreset("x", presets, NaN, 1, 1n), {
    message: "--rate must be a finite value > 0, got NaN",
  });
});

test("distribution mode validation (docs/behavior.md#w1)", () => {
  assert.throws(() => specFromDistribution({ promptTokensMin: -5, promptTokensStdev: 0, promptTokens: 0 }), {
    message: "--prompt-tokens-min must be >= 0, got -5",
  });
  assert.throws(() => specFromDistribution({ outputTokensMin: -1 }), {
    message: "--output-tokens-min must be >= 0, got -1",
  });
  assert.throws(() => specFromDistribution({ rate: -2 }), { message: "--rate must be a finite value > 0, got -2" });
  // A stdev of 0 is constant lengths whatever the range (BLIS refused it with a minimum above 0).
  assert.doesNotThrow(() => specFromDistribution({ promptTokensStdev: 0 }));
  assert.throws(() => specFromDistribution({ promptTokensStdev: 1e9 }), {
    message: "prompt-tokens and prompt-tokens-stdev should be in range [prompt-tokens-min, prompt-tokens-max]",
  });
  assert.throws(() => specFromDistribution({ outputTokens: 8000 }), {
    message: "output-tokens and output-tokens-stdev should be in range [output-tokens-min, output-tokens-max]",
  });
  const s = specFromDistribution({ prefixTokens: 10, seed: 3n });
  assert.equal(s.clients[0]!.prefix_group, "shared");
  assert.equal(s.seed, 3n);
  assert.equal(specFromDistribution({ prefixTokens: -4 }).clients[0]!.prefix_group, "");
  roundTrip(s);
});

test("convert csv-trace (docs/behavior.md#w16): average rate and lengths, horizon stop, errors", () => {
  const spec = convertCsvTrace(FIXTURES + "trace.csv");
  assert.equal(spec.num_requests, 4);
  assert.equal(spec.aggregate_rate, 4 / 2);
  assert.deepStrictEqual(spec.clients[0]!.input_distribution, dist("constant", { value: 13 / 4 }));
  assert.deepStrictEqual(spec.clients[0]!.output_distribution, dist("constant", { value: 10 / 4 }));
  assert.equal(spec.clients[0]!.id, "csv-trace");
  roundTrip(spec);
  const cut = convertCsvTrace(FIXTURES + "trace.csv", 600_000);
  assert.equal(cut.num_requests, 2);
  assert.equal(cut.aggregate_rate, 2 / 0.5);
  assert.throws(() => convertCsvTrace(FIXTURES + "trace.csv", -1), {
    message: "--horizon must be >= 0 (0 = no truncation), got -1",
  });
  assert.throws(() => convertCsvTrace(""), { message: "CSV trace path must not be empty" });
  assert.throws(
    () => convertCsvTrace(FIXTURES + "missing.csv"),
    /^UserError: opening CSV trace .*missing.csv: .*no such file or directory$/,
  );
  const dir = mkdtempSync(join(tmpdir(), "wl-"));
  const bad = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  assert.throws(() => convertCsvTrace(bad("h.csv", "a,b,c,d,e\n")), /^UserError: empty CSV: no data rows in /);
  assert.throws(() => convertCsvTrace(bad("e.csv", "")), /reading CSV header from .*: EOF/);
  assert.throws(() => convertCsvTrace(bad("c.csv", "a,b,c,d\n1,2,3,4\n")), /row 0: expected at least 5 columns, got 4/);
  assert.throws(() => convertCsvTrace(bad("t.csv", "a,b,c,d,e\nx,1,1,[1],[2]\n")), /row 0: invalid arrival_time "x": /);
  assert.throws(() => convertCsvTrace(bad("p.csv", 'a,b,c,d,e\n1,1,1,"[1,",[2]\n')), /row 0: invalid prefill_tokens: /);
  assert.throws(() => convertCsvTrace(bad("q.csv", "a,b,c,d,e\n1,1,1,[1],[2.5]\n")), /row 0: invalid decode_tokens: /);
  const { logger, lines } = capturingLogger();
  const runSpec = specFromCsvTraceMode(FIXTURES + "trace.csv", Infinity, 42n, logger);
  assert.equal(runSpec.seed, 42n);
  assert.match(lines.join(""), /lossy/);
  assert.throws(() => specFromCsvTraceMode("", 0, 1n), {
    message: "--workload-traces-filepath is required when using --workload traces",
  });
});

test("convert servegen: chunks in string order, peak rate, empirical PDFs, placeholder rate", () => {
  const { logger } = capturingLogger();
  const spec = convertServeGen(FIXTURES + "servegen", logger);
  assert.equal(spec.aggregate_rate, 1.0);
  assert.deepStrictEqual(
    spec.clients.map((c) => c.id),
    ["servegen-chunk-1", "servegen-chunk-10"],
  );
  const c = spec.clients[0]!;
  assert.equal(c.tenant_id, "chunk-1");
  assert.equal(c.rate_fraction, 4);
  assert.deepStrictEqual(c.arrival, { process: "gamma", cv: 1.8 });
  assert.deepStrictEqual(c.input_distribution.params, { "100": 0.5, "200": 0.3, "400": 0.2 });
  assert.deepStrictEqual(spec.clients[1]!.arrival, { process: "poisson" });
  assert.equal(spec.servegen_data, undefined);
  roundTrip(spec);
  assert.throws(() => convertServeGen(FIXTURES), /no chunk-\*-trace.csv files found in /);
});

test("convert inference-perf: P×U clients per stage, each stage at its own rate", () => {
  const spec = convertInferencePerf(EXAMPLES + "inference-perf-shared-prefix.yaml");
  // 8 req/s then 20 req/s: aggregate_rate is the sum of stage rates and each stage's 45 clients
  // share their stage's rate (docs/behavior.md#w9; the seed-era generator used the mean 14).
  assert.equal(spec.aggregate_rate, 28);
  assert.equal(spec.seed, 42n);
  assert.equal(spec.category, "language");
  assert.equal(spec.clients.length, 90);
  assert.equal(spec.inference_perf, undefined);
  assert.equal(spec.clients[7]!.id, "stage-0-prompt-1-user-2");
  assert.equal(spec.clients[45]!.id, "stage-1-prompt-0-user-0");
  assert.equal(spec.clients[0]!.rate_fraction, 8 / 45);
  assert.equal(spec.clients[45]!.rate_fraction, 20 / 45);
  assert.deepStrictEqual(spec.clients[0]!.lifecycle, { windows: [{ start_us: 0, end_us: 600_000_000 }] });
  assert.deepStrictEqual(spec.clients[45]!.lifecycle, { windows: [{ start_us: 600_000_000, end_us: 1_200_000_000 }] });
  // The system prompt group is per prompt, shared by both stages.
  assert.equal(spec.clients[45]!.prefix_group, spec.clients[0]!.prefix_group);
  roundTrip(spec);
  assert.throws(
    () => convertInferencePerf(EXAMPLES + "prefix-affinity-demo.yaml"),
    /does not contain an inference_perf section/,
  );
});

test("scenarios: four specs that validate and round-trip", () => {
  for (const name of SCENARIO_NAMES) {
    const spec = convertScenario(name, 7, 5n);
    assert.equal(spec.aggregate_rate, 7);
    assert.equal(spec.seed, 5n);
    roundTrip(spec);
    assert.equal(generateAll(spec, { maxRequests: 50 }).length, 50);
  }
  assert.equal(convertScenario("bursty").clients[0]!.arrival.cv, 3.5);
  assert.throws(() => convertScenario("nope"), UserError);
});

test("compose: rates add, fractions rescale, seeds/caps/cohorts dropped; errors", () => {
  const a = parseWorkloadSpec(readFileSync(EXAMPLES + "prefix-affinity-demo.yaml", "utf8"));
  const b = parseWorkloadSpec(readFileSync(EXAMPLES + "standard-throughput-matched.yaml", "utf8"));
  const out = composeSpecs([a, b]);
  assert.equal(out.aggregate_rate, 510);
  assert.equal(out.category, "language");
  assert.equal(out.seed, 0n);
  assert.equal(out.num_requests, 0);
  assert.deepStrictEqual(
    out.clients.map((c) => c.rate_fraction),
    [0.8 * (500 / 510), 0.2 * (500 / 510), 10 / 510],
  );
  roundTrip(out);
  assert.throws(() => composeSpecs([]), { message: "at least one --from flag is required" });
  // Each input is checked on its own, so the error names it (docs/behavior.md#w13).
  assert.throws(() => composeSpecs([a, { ...b, aggregate_rate: 0 }], { names: ["a.yaml", "b.yaml"] }), {
    message: "compose: b.yaml: aggregate_rate must be positive, got 0.000000",
  });
  assert.throws(() => composeSpecs([{ ...a, aggregate_rate: Infinity }]), {
    message: "compose: input 1: aggregate_rate must be a finite number, got +Inf",
  });
  // Finite inputs whose sum overflows.
  assert.throws(
    () =>
      composeSpecs([
        { ...a, aggregate_rate: 1e308 },
        { ...b, aggregate_rate: 1e308 },
      ]),
    {
      message: "compose: total aggregate rate is not finite: +Inf",
    },
  );
  assert.throws(() => composeSpecs([a, makeSpec({ aggregate_rate: 1, cohorts: [] })]), {
    message: "compose: input 2: no clients to compose (cohorts, servegen_data and inference_perf are not carried over)",
  });
  assert.equal(composeSpecs([a, b], { numRequests: 70 }).num_requests, 70);
});

test("serializer: key order, omissions, round trip of every optional section", () => {
  const spec = makeSpec({
    version: "2",
    seed: -9223372036854775808n,
    category: "multimodal",
    aggregate_rate: 0.1,
    horizon: 120_000_000,
    num_requests: 7,
    clients: [
      makeClient({
        id: "yes",
        tenant_id: "1.0",
        slo_class: "critical",
        model: "m",
        rate_fraction: 1e-7,
        arrival: { process: "weibull", cv: 1.8 },
        input_distribution: dist("empirical", { "256": 0.5, "-1": 0 }),
        output_distribution: { type: "constant", params: {}, file: "x.json" },
        prefix_group: "g",
        prefix_length: 640,
        streaming: true,
        network: { rtt_ms: 2, bandwidth_mbps: 1000 },
        lifecycle: { windows: [{ start_us: 0, end_us: 5 }] },
        multimodal: {
          text_distribution: dist("constant", { value: 3 }),
          image_distribution: dist("", {}),
          image_count_distribution: dist("", {}),
          audio_distribution: dist("", {}),
          audio_count_distribution: dist("", {}),
          video_distribution: dist("", {}),
          video_count_distribution: dist("", {}),
        },
        reasoning: { reason_ratio_distribution: dist("", {}) },
      }),
    ],
    cohorts: [
      {
        id: "c",
        population: 3,
        tenant_id: "",
        slo_class: "",
        model: "",
        arrival: { process: "gamma" },
        input_distribution: dist("constant", { value: 1 }),
        output_distribution: dist("constant", { value: 1 }),
        prefix_group: "",
        streaming: false,
        rate_fraction: 1,
        diurnal: { peak_hour: 3, peak_to_trough_ratio: 2 },
        spike: { start_time_us: 1, duration_us: 2 },
        drain: { start_time_us: 1, ramp_duration_us: 2 },
      },
    ],
    servegen_data: { path: "d", span_start: 1, span_end: 2 },
    inference_perf: {
      stages: [{ rate: 1, duration: 2 }],
      shared_prefix: {
        num_unique_system_prompts: 1,
        num_users_per_system_prompt: 1,
        system_prompt_len: 0,
        question_len: 1,
        output_len: 1,
        enable_multi_turn_chat: true,
      },
    },
  });
  roundTrip(spec);
  const text = serializeWorkloadSpec(makeSpec({ aggregate_rate: 1, clients: [makeClient({})] }));
  assert.deepStrictEqual(
    text
      .split("\n")
      .filter((l) => /^\S/.test(l))
      .map((l) => l.split(":")[0]),
    ["version", "seed", "category", "clients", "aggregate_rate"],
  );
  for (const key of [
    "id",
    "tenant_id",
    "slo_class",
    "rate_fraction",
    "streaming",
    "arrival",
    "input_distribution",
    "output_distribution",
  ]) {
    assert.match(text, new RegExp(`\\b${key}:`));
  }
  for (const key of [
    "model",
    "cv",
    "params",
    "file",
    "prefix_group",
    "prefix_length",
    "network",
    "lifecycle",
    "multimodal",
    "reasoning",
    "horizon",
    "num_requests",
    "cohorts",
  ]) {
    assert.doesNotMatch(text, new RegExp(`\\b${key}:`), key);
  }
});

test("serializer: a params key spelled << is quoted (a plain << is a merge key)", () => {
  const spec = makeSpec({
    aggregate_rate: 1,
    clients: [makeClient({ output_distribution: dist("constant", { "<<": 5, value: 3 }) })],
  });
  const text = serializeWorkloadSpec(spec);
  assert.match(text, /"<<": 5/);
  roundTrip(spec);
});

test("fuzz: random specs survive serialize → load unchanged", () => {
  const text = fc.string({ maxLength: 12 });
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v));
  const anyNum = fc.oneof(finite, fc.constantFrom(NaN, Infinity, -Infinity));
  const int = fc.integer({ min: -(2 ** 40), max: 2 ** 40 });
  const d = fc.record({ type: text, params: fc.dictionary(text, anyNum, { maxKeys: 3 }), file: text });
  const client = fc.record(
    {
      id: text,
      tenant_id: text,
      slo_class: text,
      model: text,
      rate_fraction: anyNum,
      arrival: fc.oneof(fc.record({ process: text }), fc.record({ process: text, cv: anyNum })),
      lifecycle: fc.record({ windows: fc.array(fc.record({ start_us: int, end_us: int }), { maxLength: 2 }) }),
      reasoning: fc.record(
        {
          reason_ratio_distribution: d,
          multi_turn: fc.record({ max_rounds: int, think_time_us: int, context_growth: text }),
        },
        { requiredKeys: ["reason_ratio_distribution"] },
      ),
      input_distribution: d,
      output_distribution: d,
      prefix_group: text,
      prefix_length: int,
      streaming: fc.boolean(),
    },
    {
      requiredKeys: [
        "id",
        "tenant_id",
        "slo_class",
        "model",
        "rate_fraction",
        "arrival",
        "input_distribution",
        "output_distribution",
        "prefix_group",
        "prefix_length",
        "streaming",
      ],
    },
  );
  const spec = fc.record({
    version: fc.constantFrom("2", "3", "x", "2.0"),
    seed: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    category: text,
    clients: fc.array(client, { maxLength: 3 }),
    cohorts: fc.constant([]),
    aggregate_rate: anyNum,
    horizon: int,
    num_requests: int,
  });
  // fast-check builds null-prototype records; structuredClone yields plain objects.
  fc.assert(
    fc.property(spec, (s) => roundTrip(structuredClone(s) as unknown as WorkloadSpec)),
    { numRuns: 300, seed: FC_SEED },
  );
});

test("trace v2: strict header, 22 columns, export and reload, replay", () => {
  const header = parseTraceV2Header(readFileSync(FIXTURES + "trace-header.yaml", "utf8"));
  assert.equal(header.server!.tensor_parallel, 2);
  assert.throws(() => parseTraceV2Header("trace_version: 2\nhardware: {gpu: H100}\n"), /unknown key "hardware"/);
  const trace = loadTraceV2(FIXTURES + "trace-header.yaml", FIXTURES + "trace-data.csv");
  assert.equal(trace.records.length, 3);
  assert.equal(trace.records[1]!.streaming, true);
  assert.equal(trace.records[2]!.error_message, "boom, with comma");
  assert.equal(trace.records[1]!.reason_ratio, 0.25);
  // Export → reload gives the same trace.
  assert.deepStrictEqual(parseTraceV2Header(formatTraceV2Header(trace.header)), trace.header);
  assert.equal(trace.layout, "v2");
  assert.deepStrictEqual(parseTraceV2Data(formatTraceV2Data(trace)).records, trace.records);
  assert.throws(() => parseTraceV2Data("a,b,c\n1,2,3\n", "t.csv"), {
    message: 't.csv line 1, column 1: unknown column "a"',
  });
  const bad = readFileSync(FIXTURES + "trace-data.csv", "utf8").replace(
    "0,c1,t1,critical,,0,sys,true,100",
    "0,c1,t1,critical,,0,sys,true,",
  );
  assert.throws(() => parseTraceV2Data(bad, "t.csv"), /^UserError: t.csv line 2, column input_tokens: parsing "": /);
  // Replay: 50-token group prefix on top of input_tokens; IDs from the file; arrival order.
  const reqs: ReturnType<ReturnType<typeof traceReplaySource>["next"]>[] = [];
  const source = traceReplaySource(trace, 1n);
  for (let r = source.next(); r !== null; r = source.next()) reqs.push(r);
  assert.deepStrictEqual(
    reqs.map((r) => r!.id),
    ["request_0", "request_1", "request_2"],
  );
  assert.deepStrictEqual(
    reqs.map((r) => r!.inputLen),
    [150, 100, 30],
  );
  assert.deepStrictEqual(reqs[0]!.tokens.subarray(0, 50), reqs[1]!.tokens.subarray(0, 50));
  assert.equal(reqs[1]!.reasonRatio, 0.25);
  assert.throws(() => traceReplaySource({ ...trace, records: [] }, 1n), { message: "empty trace" });
  // Out-of-order rows are emitted sorted by arrival, with the same draws.
  const shuffled = { ...trace, records: [trace.records[2]!, trace.records[0]!, trace.records[1]!] };
  const s2 = traceReplaySource(shuffled, 1n);
  const ids = [s2.next()!.id, s2.next()!.id, s2.next()!.id];
  assert.deepStrictEqual(ids, ["request_0", "request_1", "request_2"]);
});

test("CLI commands print specs that re-load; errors are UserErrors", async () => {
  const run = async (...args: string[]): Promise<string> => {
    let out = "";
    const program = new Command("blis").exitOverride();
    registerWorkloadCommands(program, { stdout: (s) => (out += s), logger: capturingLogger().logger });
    await program.parseAsync(args, { from: "user" });
    return out;
  };
  const preset = await run(
    "convert",
    "preset",
    "--name",
    "summarization",
    "--rate",
    "3",
    "--defaults-filepath",
    ROOT + "data/defaults.yaml",
  );
  assert.equal(parseWorkloadSpec(preset).clients[0]!.id, "preset-summarization");
  const csv = await run("convert", "csv-trace", "--file", FIXTURES + "trace.csv", "--horizon", "600000");
  assert.equal(parseWorkloadSpec(csv).num_requests, 2);
  assert.equal(parseWorkloadSpec(await run("convert", "servegen", "--path", FIXTURES + "servegen")).clients.length, 2);
  assert.equal(
    parseWorkloadSpec(await run("convert", "inference-perf", "--spec", EXAMPLES + "inference-perf-shared-prefix.yaml"))
      .clients.length,
    90,
  );
  assert.equal(
    parseWorkloadSpec(await run("convert", "scenario", "--name", "unfair", "--rate", "4", "--seed", "9")).seed,
    9n,
  );
  const composed = await run(
    "compose",
    "--from",
    EXAMPLES + "prefix-affinity-demo.yaml",
    "--from",
    EXAMPLES + "multiturn-chat-demo.yaml",
  );
  assert.equal(parseWorkloadSpec(composed).aggregate_rate, 1000);
  await assert.rejects(() => run("compose"), { name: "UserError", message: "at least one --from flag is required" });
  await assert.rejects(() => run("convert", "preset", "--name", "chatbot", "--rate", "abc"), UserError);
  await assert.rejects(() => run("convert", "preset", "--name", "chatbot", "--num-requests", "0"), {
    message: "--num-requests must be > 0, got 0",
  });
});

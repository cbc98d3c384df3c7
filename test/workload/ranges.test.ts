// Values BLIS accepts but that cannot describe a workload are rejected, naming the client, the key
// and its line (docs/behavior.md#w23).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkSpecBounds,
  createRequestSource,
  findValidationFailure,
  parseWorkloadSpec,
  specPositions,
} from "../../src/workload/index.js";

const OUT = "output_distribution: {type: constant, params: {value: 1}}";

/** A one-client spec: `client` is the client's flow-map body after the arrival (line 5). */
function oneClient(client: string, top = 'version: "2"'): string {
  return `${top}\naggregate_rate: 1\nnum_requests: 5\nclients:\n  - {id: c, rate_fraction: 1, arrival: {process: poisson}, ${client}}\n`;
}
const input = (type: string, params: string): string =>
  `input_distribution: {type: ${type}, params: {${params}}}, ${OUT}`;
const IN_OK = input("constant", "value: 1");

/** The message generation reports, with the key's position. */
function generationError(text: string): string {
  try {
    createRequestSource(parseWorkloadSpec(text));
  } catch (err) {
    return (err as Error).message;
  }
  return "(no error)";
}

const P = "invalid workload spec: ";
const cases: [string, string, string, string][] = [
  [
    "version",
    oneClient(IN_OK, 'version: "7"'),
    `${P}unknown version "7"; valid: "2", or "1", "1.0" or absent for v1 files`,
    "version",
  ],
  [
    "gaussian negative mean",
    oneClient(input("gaussian", "mean: -100, std_dev: 10, min: 1, max: 200")),
    `${P}client[0].input_distribution.params.mean must be >= 0, got -100.000000`,
    "mean: -100",
  ],
  [
    "gaussian negative std_dev",
    oneClient(input("gaussian", "mean: 100, std_dev: -1, min: 1, max: 200")),
    `${P}client[0].input_distribution.params.std_dev must be >= 0, got -1.000000`,
    "std_dev: -1",
  ],
  [
    "gaussian min > max",
    oneClient(input("gaussian", "mean: 100, std_dev: 1, min: 300, max: 200")),
    `${P}client[0].input_distribution.params.min must be <= max, got min 300.000000 > max 200.000000`,
    "min: 300",
  ],
  [
    "exponential negative mean",
    oneClient(input("exponential", "mean: -5")),
    `${P}client[0].input_distribution.params.mean must be > 0, got -5.000000`,
    "mean: -5",
  ],
  [
    "pareto alpha",
    oneClient(input("pareto_lognormal", "alpha: -1, xm: 0, mu: 1, sigma: -1, mix_weight: 7")),
    `${P}client[0].input_distribution.params.alpha must be > 0, got -1.000000`,
    "alpha: -1",
  ],
  [
    "pareto xm",
    oneClient(input("pareto_lognormal", "alpha: 1, xm: 0, mu: 1, sigma: 1, mix_weight: 0.5")),
    `${P}client[0].input_distribution.params.xm must be > 0, got 0.000000`,
    "xm: 0",
  ],
  [
    "pareto sigma",
    oneClient(input("pareto_lognormal", "alpha: 1, xm: 2, mu: 1, sigma: -1, mix_weight: 0.5")),
    `${P}client[0].input_distribution.params.sigma must be >= 0, got -1.000000`,
    "sigma: -1",
  ],
  [
    "pareto mix_weight",
    oneClient(input("pareto_lognormal", "alpha: 1, xm: 2, mu: 1, sigma: 1, mix_weight: 7")),
    `${P}client[0].input_distribution.params.mix_weight must be in [0, 1], got 7.000000`,
    "mix_weight: 7",
  ],
  [
    "constant negative",
    oneClient(input("constant", "value: -3")),
    `${P}client[0].input_distribution.params.value must be >= 0, got -3.000000`,
    "value: -3",
  ],
  [
    "empirical negative weight",
    oneClient(input("empirical", '"10": 1, "20": -0.5')),
    `${P}client[0].input_distribution.params.20: weight must be >= 0, got -0.500000`,
    '"20": -0.5',
  ],
  [
    "empirical negative token count",
    oneClient(input("empirical", '"-10": 1')),
    `${P}client[0].input_distribution.params.-10: token count must be >= 0`,
    '"-10"',
  ],
  [
    "empirical all weights zero",
    oneClient(input("empirical", '"10": 0')),
    `${P}client[0].input_distribution: empirical distribution needs at least one weight > 0`,
    'params: {"10": 0}',
  ],
  [
    "max_rounds",
    oneClient(`${IN_OK}, reasoning: {multi_turn: {max_rounds: -1, think_time_us: -5, context_growth: explode}}`),
    `${P}client[0].reasoning.multi_turn.max_rounds must be > 0, got -1`,
    "max_rounds: -1",
  ],
  [
    "think_time_us",
    oneClient(`${IN_OK}, reasoning: {multi_turn: {max_rounds: 2, think_time_us: -5, context_growth: explode}}`),
    `${P}client[0].reasoning.multi_turn.think_time_us must be >= 0, got -5`,
    "think_time_us: -5",
  ],
  [
    "context_growth",
    oneClient(`${IN_OK}, reasoning: {multi_turn: {max_rounds: 2, think_time_us: 5, context_growth: explode}}`),
    `${P}client[0].reasoning.multi_turn: unknown context_growth "explode"; valid: accumulate, or empty`,
    "context_growth: explode",
  ],
  [
    "reason ratio params",
    oneClient(`${IN_OK}, reasoning: {reason_ratio_distribution: {type: exponential, params: {mean: -1}}}`),
    `${P}client[0].reasoning.reason_ratio_distribution.params.mean must be > 0, got -1.000000`,
    "mean: -1",
  ],
  [
    "lifecycle inverted window",
    oneClient(`${IN_OK}, lifecycle: {windows: [{start_us: 10, end_us: 5}]}`),
    `${P}client[0].lifecycle.windows[0].end_us must be > start_us 10, got 5`,
    "end_us: 5",
  ],
  [
    "lifecycle negative start",
    oneClient(`${IN_OK}, lifecycle: {windows: [{start_us: -1, end_us: 5}]}`),
    `${P}client[0].lifecycle.windows[0].start_us must be >= 0, got -1`,
    "start_us: -1",
  ],
  [
    "multimodal item without count",
    oneClient(`${IN_OK}, multimodal: {audio_distribution: {type: constant, params: {value: 7}}}`),
    `${P}client[0].multimodal: audio_distribution needs audio_count_distribution too`,
    "audio_distribution",
  ],
  [
    "multimodal unknown type",
    oneClient(`${IN_OK}, multimodal: {text_distribution: {type: zipf}}`),
    `${P}client[0].multimodal.text_distribution: unknown distribution type "zipf"; valid: gaussian, exponential, pareto_lognormal, empirical, constant`,
    "type: zipf",
  ],
  [
    "network",
    oneClient(`${IN_OK}, network: {rtt_ms: -2, bandwidth_mbps: 100}`),
    `${P}client[0].network.rtt_ms must be a finite number >= 0, got -2.000000`,
    "rtt_ms: -2",
  ],
  [
    "prefix_length without group",
    oneClient(`${IN_OK}, prefix_length: 64`),
    `${P}client[0]: prefix_length 64 has no effect without prefix_group`,
    "prefix_length: 64",
  ],
];

/** " (line L, column C)" of the first occurrence of `needle` (where the offending key is). */
function at(text: string, needle: string): string {
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, needle);
  return ` (line ${line + 1}, column ${lines[line]!.indexOf(needle) + 1})`;
}

for (const [name, text, message, needle] of cases) {
  test(`range check: ${name}`, () => {
    assert.equal(generationError(text), message + at(text, needle));
  });
}

test("later clients and cohorts are named by their index", () => {
  const text = `aggregate_rate: 1
num_requests: 5
clients:
  - {id: a, rate_fraction: 1, arrival: {process: poisson}, ${IN_OK}}
  - id: b
    rate_fraction: 1
    arrival: {process: poisson}
    ${OUT}
    input_distribution:
      type: exponential
      params:
        mean: -5
`;
  assert.equal(
    generationError(text),
    `${P}client[1].input_distribution.params.mean must be > 0, got -5.000000${at(text, "mean: -5")}`,
  );
  const cohort = `aggregate_rate: 1
num_requests: 5
cohorts:
  - {id: k, population: 2, rate_fraction: 1, arrival: {process: gamma, cv: 0}, ${IN_OK}}
`;
  assert.equal(generationError(cohort), `${P}cohort[0].cv must be positive, got 0.000000${at(cohort, "cv: 0")}`);
});

test("servegen spans", () => {
  const f = (span: string) =>
    findValidationFailure(parseWorkloadSpec(`aggregate_rate: 1\nservegen_data: {path: x, ${span}}\n`))?.message;
  assert.equal(f("span_start: -1"), "servegen_data.span_start must be >= 0 (0 = unset), got -1");
  assert.equal(f("span_start: 5, span_end: 5"), "servegen_data.span_end must be > span_start 5, got 5");
  assert.equal(f("span_start: 5, span_end: 6"), undefined);
});

test("BLIS's checks come first: a file BLIS rejects keeps BLIS's message", () => {
  const text = oneClient(`${IN_OK}, slo_class: gold, prefix_length: 3`, 'version: "9"');
  assert.match(generationError(text), /^invalid workload spec: client\[0\]: unknown slo_class "gold"/);
});

test("values that make sense still pass: zero-length gaussians, constant 0 reason ratios, empty context_growth", () => {
  const ok = [
    input("gaussian", "mean: 0, std_dev: 0, min: 0, max: 0"),
    `${IN_OK}, reasoning: {reason_ratio_distribution: {type: constant, params: {value: 0}}, multi_turn: {max_rounds: 1, think_time_us: 0}}`,
    input("pareto_lognormal", "alpha: 1.6, xm: 64, mu: -5.3, sigma: 0, mix_weight: 1"),
    input("empirical", '"0": 1, "7": 0'),
    `${IN_OK}, network: {rtt_ms: 0, bandwidth_mbps: 0}, lifecycle: {windows: [{start_us: 0, end_us: 1}]}`,
  ];
  for (const client of ok) assert.equal(findValidationFailure(parseWorkloadSpec(oneClient(client))), null, client);
});

test("the spec's num_requests and horizon: > 0 or absent, unless a flag replaces them", () => {
  const spec = parseWorkloadSpec(oneClient(IN_OK).replace("num_requests: 5", "num_requests: -50\nhorizon: -3"));
  const positions = specPositions(spec);
  assert.throws(() => checkSpecBounds(spec, { numRequests: false, horizon: false }, positions), {
    message: "invalid workload spec: num_requests must be > 0 (or absent for no cap), got -50 (line 3, column 1)",
  });
  assert.throws(() => checkSpecBounds(spec, { numRequests: true, horizon: false }, positions), {
    message: "invalid workload spec: horizon must be > 0 (or absent for none), got -3 (line 4, column 1)",
  });
  checkSpecBounds(spec, { numRequests: true, horizon: true }, positions);
  // Generation from the spec alone uses its cap, so it checks it too.
  assert.throws(
    () => createRequestSource(spec),
    /num_requests must be > 0 \(or absent for no cap\), got -50 \(line 3, column 1\)$/,
  );
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { UserError } from "../../src/util/errors.js";
import {
  createRequestSource,
  findValidationFailure,
  parseWorkloadSpec,
  decodeWorkloadSpec,
} from "../../src/workload/index.js";
import { capturingLogger } from "./helpers.js";

const IN = "input_distribution: {type: constant, params: {value: 1}}";
const OUT = "output_distribution: {type: constant, params: {value: 1}}";
const okClient = `{id: a, rate_fraction: 1, arrival: {process: poisson}, ${IN}, ${OUT}}`;
const okCohort = `{id: c, population: 2, rate_fraction: 1, arrival: {process: poisson}, ${IN}, ${OUT}}`;

function specText(top: string, clients: string[] = [okClient], cohorts: string[] = []): string {
  return `${top}\nclients: [${clients.join(", ")}]\n${cohorts.length ? `cohorts: [${cohorts.join(", ")}]\n` : ""}`;
}

function validationMessage(text: string): string | null {
  const f = findValidationFailure(parseWorkloadSpec(text));
  return f === null ? null : f.message;
}

const cases: [string, string, string | null][] = [
  ["valid", specText("aggregate_rate: 1"), null],
  [
    "category",
    specText("category: chat\naggregate_rate: .nan"),
    'unknown category "chat"; valid: language, multimodal, reasoning',
  ],
  ["rate NaN", specText("aggregate_rate: .nan"), "aggregate_rate must be a finite number, got NaN"],
  ["rate +Inf", specText("aggregate_rate: .inf"), "aggregate_rate must be a finite number, got +Inf"],
  ["rate 0", specText("aggregate_rate: 0"), "aggregate_rate must be positive, got 0.000000"],
  ["rate -1.5", specText("aggregate_rate: -1.5"), "aggregate_rate must be positive, got -1.500000"],
  ["no clients", "aggregate_rate: 1\n", "at least one client, cohort, or servegen_data path required"],
  [
    "slo class before rate fraction",
    specText("aggregate_rate: 1", [`{slo_class: gold, rate_fraction: 0, ${IN}, ${OUT}}`]),
    'client[0]: unknown slo_class "gold"; valid: critical, standard, sheddable, batch, background, or empty',
  ],
  [
    "fraction NaN",
    specText("aggregate_rate: 1", [okClient, `{rate_fraction: .nan}`]),
    "client[1].rate_fraction must be a finite number, got NaN",
  ],
  [
    "fraction 0",
    specText("aggregate_rate: 1", [`{rate_fraction: 0}`]),
    "client[0].rate_fraction must be positive, got 0.000000",
  ],
  [
    "missing process",
    specText("aggregate_rate: 1", [`{rate_fraction: 1, ${IN}, ${OUT}}`]),
    'client[0]: unknown arrival process ""; valid: poisson, gamma, weibull, constant',
  ],
  [
    "weibull cv",
    specText("aggregate_rate: 1", [`{rate_fraction: 1, arrival: {process: weibull, cv: 12}}`]),
    "client[0]: weibull CV must be in [0.01, 10.4], got 12.000000",
  ],
  [
    "cv NaN",
    specText("aggregate_rate: 1", [`{rate_fraction: 1, arrival: {process: gamma, cv: .nan}}`]),
    "client[0].cv must be a finite number, got NaN",
  ],
  [
    "cv 0 poisson",
    specText("aggregate_rate: 1", [`{rate_fraction: 1, arrival: {process: poisson, cv: 0}}`]),
    "client[0].cv must be positive, got 0.000000",
  ],
  [
    "prefix length",
    specText("aggregate_rate: 1", [`{rate_fraction: 1, arrival: {process: poisson}, prefix_length: -2}`]),
    "client[0]: prefix_length must be non-negative, got -2",
  ],
  [
    "input type",
    specText("aggregate_rate: 1", [`{rate_fraction: 1, arrival: {process: poisson}}`]),
    'client[0].input_distribution: unknown distribution type ""; valid: gaussian, exponential, pareto_lognormal, empirical, constant',
  ],
  [
    "input param",
    specText("aggregate_rate: 1", [
      `{rate_fraction: 1, arrival: {process: poisson}, input_distribution: {type: exponential, params: {mean: .inf}}, output_distribution: {type: zzz}}`,
    ]),
    "client[0].input_distribution.params.mean must be a finite number, got +Inf",
  ],
  [
    "output type",
    specText("aggregate_rate: 1", [
      `{rate_fraction: 1, arrival: {process: poisson}, ${IN}, output_distribution: {type: zzz}}`,
    ]),
    'client[0].output_distribution: unknown distribution type "zzz"; valid: gaussian, exponential, pareto_lognormal, empirical, constant',
  ],
  [
    "clients before cohorts",
    specText("aggregate_rate: 1", [`{rate_fraction: -1}`], [`{population: 0}`]),
    "client[0].rate_fraction must be positive, got -1.000000",
  ],
  [
    "population 0",
    specText("aggregate_rate: 1", [], [`{population: 0}`]),
    "cohort[0]: population must be positive, got 0",
  ],
  [
    "population max",
    specText("aggregate_rate: 1", [], [okCohort, `{population: 100001}`]),
    "cohort[1]: population 100001 exceeds maximum 100000",
  ],
  [
    "cohort fraction",
    specText("aggregate_rate: 1", [], [`{population: 1, rate_fraction: .inf}`]),
    "cohort[0].rate_fraction must be a finite number, got +Inf",
  ],
  [
    "cohort class",
    specText("aggregate_rate: 1", [], [`{population: 1, rate_fraction: 1, slo_class: realtime}`]),
    'cohort[0]: unknown slo_class "realtime"; valid: critical, standard, sheddable, batch, background, or empty',
  ],
  [
    "cohort process",
    specText("aggregate_rate: 1", [], [`{population: 1, rate_fraction: 1, arrival: {process: x}}`]),
    'cohort[0]: unknown arrival process "x"; valid: poisson, gamma, weibull, constant',
  ],
  [
    "cohort cv checked like a client's (docs/behavior.md#w10)",
    specText(
      "aggregate_rate: 1",
      [],
      [`{population: 1, rate_fraction: 1, arrival: {process: weibull, cv: -4}, ${IN}, ${OUT}}`],
    ),
    "cohort[0]: weibull CV must be in [0.01, 10.4], got -4.000000",
  ],
  [
    "cohort dist",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, output_distribution: {type: constant, params: {value: .nan}}}`,
      ],
    ),
    "cohort[0].output_distribution.params.value must be a finite number, got NaN",
  ],
  [
    "diurnal ratio",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, ${OUT}, diurnal: {peak_hour: 30, peak_to_trough_ratio: 0.5}}`,
      ],
    ),
    "cohort[0]: diurnal peak_to_trough_ratio must be a finite number >= 1.0, got 0.500000",
  ],
  [
    "diurnal hour",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, ${OUT}, diurnal: {peak_hour: 24, peak_to_trough_ratio: 2}}`,
      ],
    ),
    "cohort[0]: diurnal peak_hour must be 0-23, got 24",
  ],
  [
    "spike start",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, ${OUT}, spike: {start_time_us: -1, duration_us: 0}}`,
      ],
    ),
    "cohort[0]: spike start_time_us must be non-negative, got -1",
  ],
  [
    "spike duration",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, ${OUT}, spike: {start_time_us: 1, duration_us: 0}}`,
      ],
    ),
    "cohort[0]: spike duration_us must be > 0, got 0",
  ],
  [
    "drain start",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, ${OUT}, drain: {start_time_us: -5, ramp_duration_us: 1}}`,
      ],
    ),
    "cohort[0]: drain start_time_us must be non-negative, got -5",
  ],
  [
    "drain ramp",
    specText(
      "aggregate_rate: 1",
      [],
      [
        `{population: 1, rate_fraction: 1, arrival: {process: gamma}, ${IN}, ${OUT}, drain: {start_time_us: 5, ramp_duration_us: 0}}`,
      ],
    ),
    "cohort[0]: drain ramp_duration_us must be > 0, got 0",
  ],
];

for (const [name, text, expected] of cases) {
  test(`validation: ${name}`, () => {
    assert.equal(validationMessage(text), expected);
  });
}

test("validation errors from generation carry the prefix and the key position", () => {
  const text = `aggregate_rate: 1
num_requests: 5
clients:
  - id: a
    rate_fraction: 1
    slo_class: gold
    arrival: {process: poisson}
`;
  const spec = parseWorkloadSpec(text);
  assert.throws(() => createRequestSource(spec), {
    name: "UserError",
    message:
      'invalid workload spec: client[0]: unknown slo_class "gold"; valid: critical, standard, sheddable, batch, background, or empty (line 6, column 5)',
  });
  // Programmatic specs have no positions.
  assert.throws(() => createRequestSource(structuredClone(spec)), {
    message:
      'invalid workload spec: client[0]: unknown slo_class "gold"; valid: critical, standard, sheddable, batch, background, or empty',
  });
});

test("strict parsing: unknown keys at every level, with line and column", () => {
  const levels: [string, string, string][] = [
    ["top", "aggregate_rate: 1\ntenants: []\n", 'unknown key "tenants" (line 2, column 1)'],
    ["client", "clients:\n  - id: a\n    priority: 3\n", 'unknown key "clients[0].priority" (line 3, column 5)'],
    [
      "arrival",
      "clients:\n  - arrival: {process: gamma, shape: 2}\n",
      'unknown key "clients[0].arrival.shape" (line 2, column 31)',
    ],
    [
      "dist",
      "clients:\n  - input_distribution: {type: constant, value: 3}\n",
      'unknown key "clients[0].input_distribution.value"',
    ],
    [
      "cohort",
      "cohorts:\n  - id: c\n    prefix_length: 4\n",
      'unknown key "cohorts[0].prefix_length" (line 3, column 5)',
    ],
    ["cohort lifecycle", "cohorts:\n  - lifecycle: {}\n", 'unknown key "cohorts[0].lifecycle"'],
    [
      "window",
      "clients:\n  - lifecycle: {windows: [{start_us: 0, stop_us: 3}]}\n",
      'unknown key "clients[0].lifecycle.windows[0].stop_us"',
    ],
    [
      "multi_turn",
      "clients:\n  - reasoning: {multi_turn: {rounds: 3}}\n",
      'unknown key "clients[0].reasoning.multi_turn.rounds"',
    ],
    ["multimodal", "clients:\n  - multimodal: {image_dist: {}}\n", 'unknown key "clients[0].multimodal.image_dist"'],
    ["network", "clients:\n  - network: {rtt: 1}\n", 'unknown key "clients[0].network.rtt"'],
    ["servegen", "servegen_data: {path: x, span: 3}\n", 'unknown key "servegen_data.span"'],
    [
      "inference_perf",
      "inference_perf: {stages: [], shared_prefix: {foo: 1}}\n",
      'unknown key "inference_perf.shared_prefix.foo"',
    ],
    ["diurnal", "cohorts:\n  - diurnal: {peak: 3}\n", 'unknown key "cohorts[0].diurnal.peak"'],
  ];
  for (const [name, text, msg] of levels) {
    assert.throws(
      () => parseWorkloadSpec(text),
      (e: unknown) =>
        e instanceof UserError && e.message.startsWith("parsing workload spec: ") && e.message.includes(msg),
      name,
    );
  }
});

test("type conversion rules of the reference YAML library", () => {
  const spec = parseWorkloadSpec(`
version: 2
seed: 1e9
horizon: 12.9
num_requests: 0x10
aggregate_rate: 3
category: language
clients:
  - id: 42
    tenant_id: 1.50
    rate_fraction: 2
    streaming: yes
    prefix_length: 7.99
    arrival: {process: poisson}
    input_distribution: {type: empirical, params: {256: 0.5, "1024": 1}}
    output_distribution: {type: constant, params: {value: .nan}}
`);
  assert.equal(spec.version, "2");
  assert.equal(spec.seed, 1000000000n);
  assert.equal(spec.horizon, 12);
  assert.equal(spec.num_requests, 16);
  const c = spec.clients[0]!;
  assert.equal(c.id, "42");
  assert.equal(c.tenant_id, "1.50");
  assert.equal(c.streaming, true);
  assert.equal(c.prefix_length, 7);
  assert.deepStrictEqual(c.input_distribution.params, { "256": 0.5, "1024": 1 });
  assert.ok(Number.isNaN(c.output_distribution.params["value"]));
  assert.equal(parseWorkloadSpec("version: 1.0\n").version, "2"); // "1.0" is read as v1
  assert.equal(parseWorkloadSpec("version: 3\n").version, "3");
  for (const off of ["no", "off", "N", "false"])
    assert.equal(parseWorkloadSpec(`clients: [{streaming: ${off}}]`).clients[0]!.streaming, false);
});

test("type errors name the key and position", () => {
  const cases: [string, RegExp][] = [
    [
      "aggregate_rate: fast\n",
      /^parsing workload spec: aggregate_rate: cannot unmarshal !!str "fast" into float \(line 1, column 17\)$/,
    ],
    ["clients: {a: 1}\n", /clients: cannot unmarshal !!map into list/],
    ["clients: [{rate_fraction: [1]}]\n", /clients\[0\]\.rate_fraction: cannot unmarshal !!seq into float/],
    ["clients: [{input_distribution: {params: {a: x}}}]\n", /params\.a: cannot unmarshal !!str "x" into float/],
    ["num_requests: 1.5e300\n", /num_requests: cannot unmarshal !!float/],
    ['seed: "42"\n', /seed: cannot unmarshal !!str "42" into int64/],
    ["clients: [{streaming: maybe}]\n", /streaming: cannot unmarshal !!str "maybe" into bool/],
    ["- 1\n- 2\n", /cannot unmarshal !!seq into workload spec/],
  ];
  for (const [text, re] of cases)
    assert.throws(
      () => parseWorkloadSpec(text),
      (e: Error) => e instanceof UserError && re.test(e.message),
      text,
    );
});

test("document-level errors: empty, malformed, duplicate keys, aliases, only the first document", () => {
  for (const text of ["", "# only a comment\n", "---\n"]) {
    assert.throws(() => parseWorkloadSpec(text), /^UserError: parsing workload spec: EOF/);
  }
  assert.throws(
    () => parseWorkloadSpec("clients: [1, 2\nversion: 2\n"),
    (e: Error) => e instanceof UserError && /\(line \d+, column \d+\)$/.test(e.message),
  );
  assert.throws(() => parseWorkloadSpec("seed: 1\nseed: 2\n"), /Map keys must be unique \(line 2, column 1\)/);
  assert.throws(() => parseWorkloadSpec("clients: *nope\n"), /parsing workload spec/);
  const spec = parseWorkloadSpec("aggregate_rate: 4\n---\nbogus_key: 1\n");
  assert.equal(spec.aggregate_rate, 4);
  // Anchors, aliases and merge keys work.
  const withAlias = parseWorkloadSpec(`clients:
  - &c {id: a, rate_fraction: 2, arrival: {process: poisson}}
  - *c
  - {<<: *c, id: b}
`);
  assert.deepStrictEqual(
    withAlias.clients.map((c) => [c.id, c.rate_fraction]),
    [
      ["a", 2],
      ["a", 2],
      ["b", 2],
    ],
  );
});

test("alias bombs and cyclic anchors are refused quickly", () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 12; i++) {
    const prev = String.fromCharCode(96 + i);
    const cur = String.fromCharCode(97 + i);
    lines.push(
      `${cur}: &${cur} [${Array(10)
        .fill("*" + prev)
        .join(",")}]`,
    );
  }
  const bomb = "clients:\n  - id: x\n" + lines.map((l) => "    " + l.replace(/^(\w): /, "x$1: ")).join("\n") + "\n";
  const start = Date.now();
  assert.throws(() => parseWorkloadSpec(bomb), UserError);
  assert.throws(() => parseWorkloadSpec(lines.join("\n") + "\n"), UserError);
  assert.throws(() => parseWorkloadSpec("clients: &c [*c]\n"), UserError);
  assert.throws(() => parseWorkloadSpec("clients: [&c {id: *c}]\n"), UserError);
  assert.ok(Date.now() - start < 5000);
});

test('v1 upgrade: empty/"1" versions map realtime → critical and interactive → standard', () => {
  const { logger, lines } = capturingLogger();
  const spec = parseWorkloadSpec(
    "clients: [{id: a, slo_class: realtime}, {id: b, slo_class: interactive}, {id: c, slo_class: batch}]\n",
    {
      logger,
    },
  );
  assert.deepStrictEqual(
    spec.clients.map((c) => c.slo_class),
    ["critical", "standard", "batch"],
  );
  assert.equal(spec.version, "2");
  assert.equal(lines.length, 2);
  const v2 = parseWorkloadSpec('version: "2"\nclients: [{slo_class: realtime}]\n');
  assert.equal(v2.clients[0]!.slo_class, "realtime");
  // Programmatic v1 specs are upgraded inside generation too.
  const reqs = createRequestSource(
    {
      version: "1",
      aggregate_rate: 1,
      num_requests: 1,
      clients: [
        {
          slo_class: "interactive",
          rate_fraction: 1,
          arrival: { process: "poisson" },
          input_distribution: { type: "constant", params: { value: 1 } },
          output_distribution: { type: "constant", params: { value: 1 } },
        },
      ],
    },
    {},
  ).next();
  assert.equal(reqs!.sloClass, "standard");
});

test("programmatic specs with wrong shapes fail as UserError naming the path", () => {
  assert.throws(() => decodeWorkloadSpec({ clients: [{ rate_fraction: "x" }] }), {
    message: 'invalid workload spec: clients[0].rate_fraction: cannot unmarshal !!str "x" into float',
  });
  assert.throws(() => decodeWorkloadSpec({ clients: [{ bogus: 1 }] }), {
    message: 'invalid workload spec: unknown key "clients[0].bogus"',
  });
  const cyclic: Record<string, unknown> = {};
  cyclic["clients"] = [cyclic];
  assert.throws(() => decodeWorkloadSpec(cyclic), UserError);
  assert.throws(() => decodeWorkloadSpec({ seed: new Date() }), UserError);
});

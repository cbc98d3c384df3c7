// Adversarial input never escapes as anything but a UserError, and never hangs.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { stringify } from "yaml";
import { UserError } from "../../src/util/errors.js";
import { createRequestSource, parseWorkloadSpec, type RequestSource } from "../../src/workload/index.js";

function drain(source: RequestSource, max = 200): void {
  for (let i = 0; i < max && source.next() !== null; i++);
}

/** Runs fn; passes if it succeeds or throws a UserError. */
function onlyUserErrors(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    assert.ok(!err.message.includes("\n"), `multi-line message: ${err.message}`);
  }
}

const num = fc.oneof(
  fc.constantFrom(0, -1, 1, 0.5, 1e-300, 1e300, 2 ** 63, -(2 ** 63), NaN, Infinity, -Infinity, 100000, 100001, 12.9),
  fc.double(),
  fc.integer({ min: -1000, max: 1000 }),
);
const scalar = fc.oneof(num, fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null));
const anyValue = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), scalar, { maxKeys: 3 }),
);
const distArb = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom("gaussian", "exponential", "pareto_lognormal", "empirical", "constant", "", "zipf"),
      anyValue,
    ),
    params: fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          "mean",
          "std_dev",
          "min",
          "max",
          "value",
          "alpha",
          "xm",
          "mu",
          "sigma",
          "mix_weight",
          "1",
          "-3",
          "12abc",
          "0",
        ),
        num,
        { maxKeys: 6 },
      ),
      anyValue,
    ),
    file: fc.oneof(fc.constant(""), fc.string({ maxLength: 4 })),
  },
  { requiredKeys: [] },
);
const arrivalArb = fc.record(
  { process: fc.oneof(fc.constantFrom("poisson", "gamma", "weibull", "constant", "x"), anyValue), cv: num },
  { requiredKeys: [] },
);
const clientArb = fc.record(
  {
    id: fc.string({ maxLength: 5 }),
    slo_class: fc.constantFrom("", "critical", "realtime", "batch", "gold"),
    rate_fraction: num,
    arrival: fc.oneof(arrivalArb, anyValue),
    input_distribution: fc.oneof(distArb, anyValue),
    output_distribution: distArb,
    prefix_group: fc.constantFrom("", "g", "h"),
    prefix_length: fc.oneof(fc.integer({ min: -5, max: 2000 }), num),
    streaming: fc.oneof(fc.boolean(), anyValue),
    lifecycle: fc.record({
      windows: fc.array(
        fc.record({ start_us: fc.integer({ min: -10, max: 200_000 }), end_us: fc.integer({ min: -10, max: 200_000 }) }),
        {
          maxLength: 3,
        },
      ),
    }),
    multimodal: fc.record(
      { text_distribution: distArb, image_distribution: distArb, image_count_distribution: distArb },
      { requiredKeys: [] },
    ),
    reasoning: fc.record(
      {
        reason_ratio_distribution: distArb,
        multi_turn: fc.record({
          max_rounds: fc.integer({ min: -2, max: 6 }),
          think_time_us: fc.integer({ min: -1000, max: 100_000 }),
          context_growth: fc.constantFrom("accumulate", ""),
        }),
      },
      { requiredKeys: [] },
    ),
    bogus: anyValue,
  },
  { requiredKeys: [] },
);
const cohortArb = fc.record(
  {
    id: fc.string({ maxLength: 3 }),
    population: fc.oneof(fc.integer({ min: -1, max: 50 }), num),
    rate_fraction: num,
    arrival: arrivalArb,
    input_distribution: distArb,
    output_distribution: distArb,
    diurnal: fc.record({ peak_hour: fc.integer({ min: -1, max: 25 }), peak_to_trough_ratio: num }),
    spike: fc.record({
      start_time_us: fc.integer({ min: -5, max: 100_000 }),
      duration_us: fc.integer({ min: -5, max: 100_000 }),
    }),
    drain: fc.record({
      start_time_us: fc.integer({ min: -5, max: 100_000 }),
      ramp_duration_us: fc.integer({ min: -5, max: 100_000 }),
    }),
  },
  { requiredKeys: [] },
);
const specArb = fc.record(
  {
    version: fc.constantFrom("", "1", "1.0", "2", "3"),
    seed: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), num),
    category: fc.constantFrom("", "language", "reasoning", "chat"),
    aggregate_rate: num,
    clients: fc.oneof(fc.array(clientArb, { maxLength: 3 }), anyValue),
    cohorts: fc.array(cohortArb, { maxLength: 2 }),
    horizon: num,
    num_requests: num,
    inference_perf: fc.record(
      {
        stages: fc.array(fc.record({ rate: num, duration: fc.integer({ min: -1, max: 3 }) }), { maxLength: 2 }),
        shared_prefix: fc.record({
          num_unique_system_prompts: fc.integer({ min: -1, max: 3 }),
          num_users_per_system_prompt: fc.integer({ min: -1, max: 3 }),
          system_prompt_len: fc.integer({ min: -1, max: 100 }),
          question_len: fc.integer({ min: -1, max: 100 }),
          output_len: fc.integer({ min: -1, max: 100 }),
          enable_multi_turn_chat: fc.boolean(),
        }),
      },
      { requiredKeys: [] },
    ),
    unknown_top: anyValue,
  },
  { requiredKeys: [] },
);
// Generation is always bounded: a small cap and a short horizon.
const boundsArb = fc.record({
  maxRequests: fc.integer({ min: -1, max: 40 }),
  horizon: fc.oneof(fc.integer({ min: -5, max: 300_000 }), fc.constant(Infinity)),
});

test("fuzz: programmatic specs → success or UserError", () => {
  fc.assert(
    fc.property(specArb, boundsArb, (spec, bounds) => {
      onlyUserErrors(() =>
        drain(
          createRequestSource(spec, {
            ...bounds,
            horizon: bounds.maxRequests <= 0 && bounds.horizon === Infinity ? 1000 : bounds.horizon,
          }),
        ),
      );
    }),
    { numRuns: 400, seed: FC_SEED },
  );
});

test("fuzz: the same specs as YAML text → success or UserError", () => {
  fc.assert(
    fc.property(specArb, boundsArb, (spec, bounds) => {
      let text: string;
      try {
        text = stringify(spec);
      } catch {
        return;
      }
      onlyUserErrors(() =>
        drain(createRequestSource(parseWorkloadSpec(text), { ...bounds, horizon: Math.min(bounds.horizon, 300_000) })),
      );
    }),
    { numRuns: 300, seed: FC_SEED },
  );
});

const yamlish = fc.string({
  unit: fc.constantFrom(
    "a",
    ":",
    " ",
    "\n",
    "-",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&x",
    "*x",
    "!",
    "!!str",
    "'",
    '"',
    "#",
    "|",
    ">",
    "? ",
    "<<",
    "%YAML 1.2\n",
    "---\n",
    "...\n",
    "clients",
    "1",
    ".nan",
    "\t",
    "\\",
    "@",
    "`",
  ),
  maxLength: 80,
});

test("fuzz: malformed YAML text → success or UserError", () => {
  fc.assert(
    fc.property(
      fc.oneof(yamlish, fc.string({ maxLength: 60 }), fc.string({ unit: "grapheme", maxLength: 30 })),
      (text) => {
        onlyUserErrors(() => {
          const spec = parseWorkloadSpec(text);
          drain(createRequestSource(spec, { maxRequests: 10, horizon: 100_000 }));
        });
      },
    ),
    { numRuns: 2000, seed: FC_SEED },
  );
});

test("adversarial documents: deep nesting, huge numbers, long anchors chains", () => {
  const deep = "[".repeat(5000) + "]".repeat(5000);
  const deepMap = "a: ".repeat(3000) + "1";
  const cases = [
    deep,
    `clients: ${deep}`,
    deepMap,
    "aggregate_rate: 1e999\nclients: [{rate_fraction: 1}]",
    "num_requests: 99999999999999999999999\n",
    "seed: 9223372036854775808\n",
    "clients: [{prefix_length: 1e18, prefix_group: g, rate_fraction: 1, arrival: {process: poisson}}]\naggregate_rate: 1\nnum_requests: 1",
  ];
  for (const text of cases)
    onlyUserErrors(() => drain(createRequestSource(parseWorkloadSpec(text), { maxRequests: 5, horizon: 1000 })));
  // Huge lengths fail cleanly instead of exhausting memory.
  assert.throws(
    () =>
      drain(
        createRequestSource(
          parseWorkloadSpec(
            "aggregate_rate: 1\nclients: [{rate_fraction: 1, arrival: {process: poisson}, input_distribution: {type: constant, params: {value: 1e12}}, output_distribution: {type: exponential, params: {mean: 1e15}}}]",
          ),
          { maxRequests: 5 },
        ),
      ),
    UserError,
  );
  assert.throws(
    () =>
      drain(
        createRequestSource(
          parseWorkloadSpec(
            "aggregate_rate: 1\nclients: [{rate_fraction: 1, arrival: {process: poisson}, input_distribution: {type: constant, params: {value: 3}}, output_distribution: {type: exponential, params: {mean: 1e15}}}]",
          ),
          { maxRequests: 5 },
        ),
      ),
    UserError,
  );
});

test("fuzz: structurally valid specs with random numbers generate ordered, well-formed requests", () => {
  const n = fc.oneof(
    fc.constantFrom(0.5, 1, 3, 1e-300, 1e300, NaN, 0, -1),
    fc.double({ min: 0.01, max: 1e4, noNaN: true }),
  );
  const lengthDist = fc.oneof(
    fc.record({
      type: fc.constant("exponential"),
      params: fc.record({ mean: fc.double({ min: 0, max: 300, noNaN: true }) }),
    }),
    fc.record({ type: fc.constant("constant"), params: fc.record({ value: fc.integer({ min: 0, max: 300 }) }) }),
    fc.record({
      type: fc.constant("gaussian"),
      params: fc.record({
        mean: fc.integer({ min: 0, max: 200 }),
        std_dev: fc.integer({ min: 0, max: 50 }),
        min: fc.integer({ min: 0, max: 20 }),
        max: fc.integer({ min: 0, max: 300 }),
      }),
    }),
    fc.record({
      type: fc.constant("empirical"),
      params: fc.dictionary(fc.integer({ min: 0, max: 500 }).map(String), fc.double({ min: -1, max: 5, noNaN: true }), {
        minKeys: 1,
        maxKeys: 4,
      }),
    }),
  );
  const client = fc.record({
    rate_fraction: n,
    tenant_id: fc.constantFrom("a", "b"),
    prefix_group: fc.constantFrom("", "g"),
    arrival: fc.record({
      process: fc.constantFrom("poisson", "gamma", "weibull", "constant"),
      cv: fc.double({ min: 0.05, max: 10, noNaN: true }),
    }),
    input_distribution: lengthDist,
    output_distribution: lengthDist,
    reasoning: fc.option(
      fc.record({
        reason_ratio_distribution: lengthDist,
        multi_turn: fc.record({
          max_rounds: fc.integer({ min: 0, max: 4 }),
          think_time_us: fc.integer({ min: -2000, max: 50_000 }),
          context_growth: fc.constantFrom("accumulate", ""),
        }),
      }),
      { nil: undefined },
    ),
  });
  fc.assert(
    fc.property(
      fc.record({
        seed: fc.bigInt({ min: 0n, max: 1000n }),
        aggregate_rate: n,
        clients: fc.array(client, { minLength: 1, maxLength: 3 }),
      }),
      fc.integer({ min: 1, max: 60 }),
      (spec, max) => {
        onlyUserErrors(() => {
          const source = createRequestSource(spec, { maxRequests: max, horizon: 5_000_000 });
          let last = -Infinity;
          for (let r = source.next(), i = 0; r !== null; r = source.next(), i++) {
            assert.equal(r.id, `request_${i}`);
            assert.ok(r.arrival >= last);
            last = r.arrival;
            assert.equal(r.tokens.length, r.inputLen + r.outputLen);
            assert.ok(r.inputLen >= 0 && r.outputLen >= 0);
            assert.ok(i < max);
          }
        });
      },
    ),
    { numRuns: 300, seed: FC_SEED },
  );
});

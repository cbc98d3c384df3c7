import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { parsePlan, PlanError, planFromCells, type SweepPlan } from "../../src/experiment/index.js";
import { blis, MODEL, ROOT, tmpDir, writePlan } from "./helpers.js";

const BASE = `name: t
base:
  flags:
    model: ${MODEL}
    num-requests: 50
`;

function parse(text: string): SweepPlan {
  return parsePlan(text, { file: "plan.yaml", baseDir: path.join(ROOT, "examples/experiments") });
}

/** Asserts a PlanError with one line matching `re`. */
function bad(text: string, re: RegExp): void {
  assert.throws(
    () => parse(text),
    (e: unknown) => {
      assert.ok(e instanceof PlanError, `expected PlanError, got ${String(e)}`);
      assert.ok(!e.message.includes("\n"), `not one line: ${e.message}`);
      assert.match(e.message, re);
      return true;
    },
  );
}

test("defaults: seeds, timeout, metrics, conservation on", () => {
  const p = parse(BASE);
  assert.deepEqual(p.seeds, [42, 123, 456]);
  assert.equal(p.timeoutS, 300);
  assert.deepEqual(p.metrics, [
    "ttft_mean",
    "ttft_p99",
    "e2e_mean",
    "e2e_p99",
    "sustained_throughput",
    "throughput",
    "completed",
  ]);
  assert.deepEqual(p.checks, { conservation: true, determinism: false, monotonic: [] });
  assert.equal(p.configs.length, 1);
  assert.equal(p.configs[0]!.label, "base");
  assert.deepEqual(p.configs[0]!.input, { model: MODEL, numRequests: 50 });
});

test("unknown flag names the item and its position", () => {
  bad(
    BASE + "    num-instancez: 2\n",
    /^plan\.yaml:6:5: base\.flags "num-instancez": unknown flag "num-instancez" \(did you mean "num-instances"\?\)/,
  );
});

test("empty axis", () => {
  bad(
    BASE +
      "axes:\n  - {name: rate, flag: rate, values: [1]}\n  - name: instances\n    flag: num-instances\n    values: []\n",
    /^plan\.yaml:10:13: axes\[1\] "instances": values must not be empty$/,
  );
});

test("empty seed list", () => {
  bad(BASE + "seeds: []\n", /^plan\.yaml:6:8: seeds: the seed list must not be empty$/);
});

test("ratio naming a missing axis value", () => {
  bad(
    BASE +
      "axes:\n  - {name: instances, flag: num-instances, values: [2, 4]}\nratios:\n  - {name: r, numerator: instances=8, denominator: instances=2, metric: ttft_p99}\n",
    /^plan\.yaml:9:26: ratios\[0\] "r" numerator "instances=8": no value "8" in axis "instances" \(values: 2, 4\)$/,
  );
});

test("unknown metric", () => {
  bad(
    BASE + "metrics: [ttft_p99, ttft_p999]\n",
    /^plan\.yaml:6:21: metrics\[1\] "ttft_p999": unknown metric \(did you mean "ttft_p99"\?\)$/,
  );
  bad(
    BASE + "metrics: [per_slo.critical.ttft_p98]\n",
    /metrics\[0\] "per_slo\.critical\.ttft_p98": unknown per-SLO field/,
  );
  bad(
    BASE + "ratios:\n  - {numerator: base, denominator: base, metric: nope}\n",
    /ratios\[0\] metric "nope": unknown metric/,
  );
});

test("unknown keys at every level", () => {
  bad(BASE + "sedes: [1]\n", /^plan\.yaml:6:1: plan: unknown key "sedes" \(did you mean "seeds"\?\)/);
  bad(
    BASE + "axes:\n  - {name: x, flag: rate, values: [1], vals: 2}\n",
    /^plan\.yaml:7:40: axes\[0\]: unknown key "vals"/,
  );
  bad(BASE + "checks: {determinism: true, monotone: {}}\n", /^plan\.yaml:6:29: checks: unknown key "monotone"/);
  bad(BASE + "  flagz: {}\n", /^plan\.yaml:6:3: base: unknown key "flagz"/);
});

test("other invalid plans", () => {
  bad(
    BASE + "axes:\n  - {name: x, flag: num-instances, values: [1, two]}\n",
    /axes\[0\] "x" values\[1\]: invalid value for --num-instances: "two" is not an integer/,
  );
  bad(BASE + "seeds: [1, 1]\n", /seeds: seed 1 is listed twice/);
  bad(BASE + "timeout_s: 0\n", /timeout_s: expected a number of seconds > 0/);
  bad(BASE + "    seed: 3\n", /base\.flags "seed": flag "seed" is not allowed in a plan/);
  bad(BASE + "baseline: nope\n", /baseline "nope": no configuration labeled "nope"/);
  bad(BASE + "axes:\n  - {name: r, spec: aggregate_rate, values: [1]}\n", /spec paths need base\.workload_spec/);
  bad(
    BASE +
      "axes:\n  - {name: p, flag: routing-policy, values: [round-robin]}\nchecks:\n  monotonic: {axis: p, metric: ttft_p99, direction: increasing}\n",
    /axis "p": the axis values must all be numbers/,
  );
  bad(
    BASE + "axes:\n  - {name: x, flag: rate, values: [1]}\nvariants:\n  - {name: a, flags: {rate: 3}}\n",
    /variants\[0\] "a": flag "rate" is also set by axis "x"/,
  );
  bad("name: x\n", /no model/);
  bad(BASE + "axes: [ {name: x\n", /^plan\.yaml:\d+:\d+: YAML: /);
  bad(
    BASE +
      "  workload_spec: ../multiturn-chat-demo.yaml\naxes:\n  - name: c\n    spec: clients[3].arrival.cv\n    values: [1]\n",
    /axes\[0\] "c" value 1: spec path "clients\[3\]\.arrival\.cv": clients\[3\] does not exist/,
  );
  bad(
    BASE +
      "  workload_spec: ../multiturn-chat-demo.yaml\naxes:\n  - {name: c, spec: 'clients[0].arrival.foo', values: [1]}\n",
    /unknown key "clients\[0\]\.arrival\.foo"/,
  );
});

test("axes × variants product, labels, spec axes on a copy of the base spec", () => {
  const p = parse(
    BASE +
      "  workload_spec: ../multiturn-chat-demo.yaml\n" +
      "axes:\n  - {name: instances, flag: num-instances, values: [2, 4]}\n  - {name: rate, spec: aggregate_rate, values: [100, 300]}\n" +
      "variants:\n  - name: plain\n  - name: gamma\n    spec_overrides: {'clients[0].arrival': {process: gamma, cv: 3.5}}\n" +
      "baseline: variant=plain\n",
  );
  assert.equal(p.configs.length, 8);
  assert.deepEqual(
    p.configs.map((c) => c.label),
    [
      "instances=2,rate=100,variant=plain",
      "instances=2,rate=100,variant=gamma",
      "instances=2,rate=300,variant=plain",
      "instances=2,rate=300,variant=gamma",
      "instances=4,rate=100,variant=plain",
      "instances=4,rate=100,variant=gamma",
      "instances=4,rate=300,variant=plain",
      "instances=4,rate=300,variant=gamma",
    ],
  );
  const c = p.configs[3]!;
  assert.equal(c.input.numInstances, 2);
  const spec = c.input.workloadSpecObject as {
    aggregate_rate: number;
    clients: { arrival: { process: string; cv?: number } }[];
  };
  assert.equal(spec.aggregate_rate, 300);
  assert.deepEqual(spec.clients[0]!.arrival, { process: "gamma", cv: 3.5 });
  const plain = p.configs[0]!.input.workloadSpecObject as typeof spec;
  assert.equal(plain.aggregate_rate, 100);
  assert.equal(plain.clients[0]!.arrival.process, "poisson");
  assert.deepEqual(p.baseline, { text: "variant=plain", assign: { variant: "plain" } });
});

test("planFromCells validates and builds a plan from in-memory configurations", () => {
  const p = planFromCells(
    [
      { label: "small", input: { model: MODEL, numRequests: 20 }, coords: { n: 1 } },
      { label: "big", input: { model: MODEL, numRequests: 40 }, coords: { n: 2 } },
    ],
    {
      seeds: [1, 2],
      baseline: "small",
      checks: { monotonic: [{ axis: "n", metric: "completed", direction: "increasing", where: {} }] },
    },
  );
  assert.equal(p.configs.length, 2);
  assert.deepEqual(p.baseline, { text: "small", config: 0 });
  assert.throws(() => planFromCells([], {}), PlanError);
  assert.throws(
    () => planFromCells([{ label: "a", input: { model: MODEL } }], { metrics: ["nope"] }),
    /metrics\[0\] "nope"/,
  );
});

test("the CLI reports a bad plan in one line with exit status 2", () => {
  const dir = tmpDir("plan");
  const plan = writePlan(
    dir,
    "bad.yaml",
    BASE + "axes:\n  - name: instances\n    flag: num-instances\n    values: []\n",
  );
  const r = blis(["sweep", plan, "--out", path.join(dir, "out")]);
  assert.equal(r.code, 2);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /bad\.yaml:9:13: axes\[0\] "instances": values must not be empty$/);
  assert.equal(r.stdout, "");
  const r2 = blis(["experiment", "--plan", path.join(dir, "missing.yaml")]);
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /missing\.yaml: cannot read the plan file/);
});

test("repeatable flags: plugin files resolve against the plan, plugin options stay as written; report key accepted", () => {
  const plan = parse(
    BASE +
      "    plugin: ../plugins/least-kv-scorer.mjs\n    plugin-option: [free-kv.floor=0.1, other.k=v]\nreport:\n  pareto: [ttft_p99, throughput]\n",
  );
  const input = plan.configs[0]!.input;
  assert.deepEqual(input.plugin, [path.join(ROOT, "examples/plugins/least-kv-scorer.mjs")]);
  assert.deepEqual(input.pluginOption, ["free-kv.floor=0.1", "other.k=v"]);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadSpace, parseBound, parseSpace, SpaceError, type OptimizeSpace } from "../../src/optimize/index.js";
import { UserError } from "../../src/util/errors.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const MODEL = "meta-llama/llama-3.1-8b-instruct";

const HEAD = `name: t
budget: 12
base:
  flags:
    model: ${MODEL}
    routing-policy: weighted
    num-requests: 50
`;

const PARAMS = `parameters:
  - name: age
    type: continuous
    min: 1.0e-7
    max: 1.0e-3
    log: true
    target: {flag: slo-age-weight}
  - name: w_prefix
    type: continuous
    min: 0.1
    max: 5
    target: {scorer: prefix-affinity}
objective: {metric: ttft_p99, direction: minimize}
`;

function parse(text: string): OptimizeSpace {
  return parseSpace(text, { file: "space.yaml", baseDir: path.join(ROOT, "examples/optimize") });
}

/** Asserts a one-line SpaceError (a UserError: exit status 1) matching `re`. */
function bad(text: string, re: RegExp): void {
  assert.throws(
    () => parse(text),
    (e: unknown) => {
      assert.ok(e instanceof SpaceError && e instanceof UserError, `expected SpaceError, got ${String(e)}`);
      assert.ok(!e.message.includes("\n"), `not one line: ${e.message}`);
      assert.match(e.message, re);
      return true;
    },
  );
}

test("a valid space: defaults, targets, hash", () => {
  const s = parse(HEAD + PARAMS);
  assert.equal(s.name, "t");
  assert.deepEqual(s.seeds, [42, 123, 456]);
  assert.equal(s.budget, 12);
  assert.equal(s.initial, 5, "max(5, budget/4)");
  assert.equal(s.seed, 1);
  assert.deepEqual(
    s.parameters.map((p) => p.target.kind),
    ["flag", "scorer"],
  );
  assert.equal(s.objective.direction, "minimize");
  assert.equal(s.baseline, null);
  assert.equal(parse(HEAD.replace("budget: 12", "budget: 40") + PARAMS).initial, 10);
  // The identity ignores the budget when the initial design does not depend on it …
  const a = parse(HEAD + "initial: 4\n" + PARAMS);
  const b = parse(HEAD.replace("budget: 12", "budget: 20") + "initial: 4\n" + PARAMS);
  assert.equal(a.hash, b.hash);
  // … but not the parameters.
  assert.notEqual(a.hash, parse(HEAD + "initial: 4\n" + PARAMS.replace("max: 5", "max: 6")).hash);
});

test("the example strategy space parses", () => {
  const s = loadSpace(path.join(ROOT, "examples/optimize/strategy.yaml"));
  assert.equal(s.budget, 30);
  assert.deepEqual(s.seeds, [42, 43, 44]);
  assert.ok(s.baseline !== null);
  assert.equal(s.constraints[0]!.metric, "throughput");
  assert.deepEqual(s.constraints[0]!.min, { kind: "baseline", factor: 0.9 });
  assert.equal(s.parameters[0]!.target.kind, "variant");
  assert.deepEqual(s.parameters[0]!.categories[1]!.flags, { priorityPolicy: "slo-class", scheduler: "priority-fcfs" });
  assert.ok(s.specFile!.endsWith("examples/strategy-workload.yaml"));
});

test("bounds: numbers, baseline, factor × baseline", () => {
  assert.deepEqual(parseBound("12.5"), { kind: "value", value: 12.5 });
  assert.deepEqual(parseBound("baseline"), { kind: "baseline", factor: 1 });
  assert.deepEqual(parseBound("0.9 * baseline"), { kind: "baseline", factor: 0.9 });
  assert.deepEqual(parseBound("baseline*1.1"), { kind: "baseline", factor: 1.1 });
  assert.equal(parseBound("baseline + 3"), null);
});

test("invalid spaces: one line naming the item and its line/column", () => {
  bad(HEAD + "budjet: 3\n" + PARAMS, /^space\.yaml:8:1: space: unknown key "budjet" \(did you mean "budget"\?\)/);
  bad(HEAD + "parameters: [\n", /^space\.yaml:\d+:\d+: YAML: /);
  bad(
    HEAD + "initial: 20\n" + PARAMS,
    /^space\.yaml:8:10: initial: the initial design \(20\) is larger than the budget \(12\)/,
  );
  bad(
    HEAD + PARAMS.replace("max: 1.0e-3", "max: 1.0e-8"),
    /^space\.yaml:12:10: parameters\[0\] "age": min \(1e-7\) must be less than max \(1e-8\)/,
  );
  bad(HEAD + PARAMS.replace("min: 1.0e-7", "min: 0"), /parameters\[0\] "age": a log-scale parameter needs min > 0/);
  bad(
    HEAD + PARAMS.replace("slo-age-weight", "slo-threshold-standard"),
    /^space\.yaml:14:13: parameters\[0\] "age": --slo-threshold-standard takes an integer: use type integer/,
  );
  bad(
    HEAD + PARAMS.replace("slo-age-weight", "slo-age-wieght"),
    /parameters\[0\] "age" target: unknown flag "slo-age-wieght" \(did you mean "slo-age-weight"\?\)/,
  );
  bad(HEAD + PARAMS.replace("slo-age-weight", "seed"), /flag "seed" is not allowed in a search space/);
  bad(
    HEAD + PARAMS.replace("prefix-affinity", "prefix-affinty"),
    /^space\.yaml:19:22: parameters\[1\] "w_prefix" target: unknown scorer "prefix-affinty" \(did you mean "prefix-affinity"\?\)/,
  );
  bad(
    HEAD.replace("    routing-policy: weighted\n", "") + PARAMS,
    /parameters "w_prefix": scorer weights only apply to weighted routing/,
  );
  bad(
    HEAD + PARAMS.replace("target: {scorer: prefix-affinity}", "target: {flag: slo-age-weight}"),
    /parameters\[1\] "w_prefix": flag "slo-age-weight" is also set by parameter "age"/,
  );
  bad(
    HEAD + PARAMS.replace("ttft_p99", "ttft_p999"),
    /^space\.yaml:\d+:21: objective\.metric "ttft_p999": unknown metric \(did you mean "ttft_p99"\?\)/,
  );
  bad(
    HEAD + PARAMS.replace("minimize", "smallest"),
    /objective\.direction: expected minimize or maximize, got "smallest"/,
  );
  bad(HEAD + PARAMS.replace("ttft_p99", "fitness"), /fitness needs objective\.fitness_weights/);
  bad(
    HEAD + PARAMS + "constraints:\n  - {metric: throughput, min: 0.9 * baseline}\n",
    /^space\.yaml:22:31: constraints\[0\] "throughput" min: refers to the baseline, but the space has no baseline section/,
  );
  bad(
    HEAD + PARAMS + "constraints:\n  - {metric: throughput}\n",
    /constraints\[0\] "throughput": give min, max or both/,
  );
  bad(
    HEAD +
      "parameters:\n  - name: p\n    type: categorical\n    values: [fcfs]\n    target: {flag: scheduler}\n" +
      "objective: {metric: ttft_p99}\n",
    /^space\.yaml:11:13: parameters\[0\] "p" values: a categorical parameter needs at least two values/,
  );
  bad(
    HEAD +
      "parameters:\n  - name: p\n    type: categorical\n    values: [1, x]\n    target: {flag: num-instances}\n" +
      "objective: {metric: ttft_p99}\n",
    /^space\.yaml:11:17: parameters\[0\] "p" values\[1\]: invalid value for --num-instances: "x" is not an integer/,
  );
  bad(
    HEAD +
      "parameters:\n  - name: p\n    type: categorical\n    values:\n      - {name: a, flags: {scheduler: fcfs}}\n      - {nme: b}\n    target: variant\n" +
      "objective: {metric: ttft_p99}\n",
    /^space\.yaml:13:10: parameters\[0\] "p" values\[1\]: unknown key "nme" \(did you mean "name"\?\)/,
  );
  bad(
    HEAD + PARAMS.replace("type: continuous", "type: real"),
    /parameters\[0\] "age" type: expected continuous, integer or categorical, got "real"/,
  );
  bad(HEAD.replace(`    model: ${MODEL}\n`, "") + PARAMS, /base\.flags: no model: set base\.flags model/);
  bad(HEAD + PARAMS.replace("{scorer: prefix-affinity}", "{plugin_option: alpha}"), /expected PLUGIN\.KEY/);
});

// The policy stage of the configuration pipeline (src/sim/validatePolicies.ts): descriptor
// parameter checks, policy names, tracing and SLO extensions, then the weighted-routing scorers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { selectScorers, validatePolicies } from "../../src/sim/validatePolicies.js";
import { DEFAULT_SCORERS } from "../../src/sim/simConfig.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { silentLogger } from "../../src/util/log.js";
import { capture, cliError, options, userError } from "./helpers.js";

const policyError = (input: RunInput): string => userError(() => validatePolicies(options(input).o, silentLogger));

test("validatePolicies returns the tracing flag and parsed SLO settings", () => {
  const def = validatePolicies(options().o, silentLogger);
  assert.equal(def.tracing, false);
  assert.equal(def.sloPrefill, null);
  const p = validatePolicies(
    options({
      traceLevel: "decisions",
      sloCacheWeights: "critical:0.1,standard:0.2,sheddable:0.3",
      sloPrefillThresholds: "batch:64",
    }).o,
    silentLogger,
  );
  assert.equal(p.tracing, true);
  assert.equal(p.sloCacheWeights.length, 3);
  assert.deepEqual([...p.sloCacheWeights].sort(), [0.1, 0.2, 0.3]);
  assert.deepEqual([...(p.sloPrefill ?? new Map<string, number>())], [["batch", 64]]);
});

test("validatePolicies checks the selected policy's descriptor parameters, and only its", async () => {
  assert.doesNotThrow(() => validatePolicies(options({ tokenBucketCapacity: -1 }).o, silentLogger));
  const msg = policyError({ admissionPolicy: "token-bucket", tokenBucketCapacity: -1 });
  assert.equal(msg, "--token-bucket-capacity must be a finite value > 0, got -1");
  assert.equal(msg, await cliError(["--admission-policy", "token-bucket", "--token-bucket-capacity", "-1"]));
  assert.equal(
    policyError({ admissionPolicy: "token-bucket", tokenBucketRefillRate: Infinity }),
    "--token-bucket-refill-rate must be a finite value > 0, got Infinity",
  );
});

test("validatePolicies: unknown names list the registered ones, as the CLI does", async () => {
  const msg = policyError({ routingPolicy: "bogus" });
  assert.equal(msg, 'Unknown routing policy "bogus". Valid: always-busiest, least-loaded, round-robin, weighted');
  assert.equal(msg, await cliError(["--routing-policy", "bogus"]));
  assert.equal(
    policyError({ scheduler: "lifo" }),
    'Unknown scheduler "lifo". Valid: fcfs, priority-fcfs, reverse-priority, sjf',
  );
  assert.equal(
    policyError({ preemptionPolicy: "x" }),
    'Unknown preemption policy "x". Valid: fcfs, priority, slo-aware, tail',
  );
  assert.equal(policyError({ priorityBridge: "up" }), 'Unknown priority bridge "up". Valid: floor, hint, none');
  // Admission before routing.
  assert.match(policyError({ routingPolicy: "x", admissionPolicy: "y" }), /^Unknown admission policy "y"/);
});

test("validatePolicies: trace level and extension ranges", () => {
  assert.equal(policyError({ traceLevel: "all" }), 'Unknown trace level "all". Valid: none, decisions');
  assert.equal(policyError({ counterfactualK: -1 }), "--counterfactual-k must be >= 0, got -1");
  assert.equal(
    policyError({ admissionLoadThreshold: -1 }),
    "--admission-load-threshold must be a finite value >= 0, got -1",
  );
  assert.equal(policyError({ sloBaseStandard: NaN }), "--slo-base-standard must be a finite number, got NaN");
  assert.equal(policyError({ sloAgeWeight: -0.5 }), "--slo-age-weight must be a finite value >= 0, got -0.5");
  assert.equal(policyError({ sloThresholdSheddable: -1 }), "--slo-threshold-sheddable must be >= 0, got -1");
});

test("validatePolicies warns about tracing options without tracing and non-decreasing SLO scores", () => {
  const { log, lines } = capture();
  validatePolicies(options({ counterfactualK: 2, summarizeTrace: true }).o, log);
  assert.deepEqual(lines, [
    'level=warn msg="--counterfactual-k has no effect without --trace-level decisions"',
    'level=warn msg="--summarize-trace has no effect without --trace-level decisions"',
  ]);
  const slo = capture();
  validatePolicies(options({ priorityPolicy: "slo-tiered", sloBaseCritical: 1 }).o, slo.log);
  assert.deepEqual(slo.lines, [
    'level=warn msg="SLO base scores are not strictly decreasing from critical to sheddable"',
  ]);
});

test("selectScorers: the flag wins over the bundle, the bundle over the defaults", () => {
  const bundle = [{ name: "load-balance", weight: 1 }];
  const weighted = options({ routingPolicy: "weighted" }).o;
  assert.deepEqual(selectScorers(weighted, [], silentLogger), DEFAULT_SCORERS);
  assert.deepEqual(selectScorers(weighted, bundle, silentLogger), bundle);
  const flag = options({ routingPolicy: "weighted", routingScorers: "queue-depth:2" }).o;
  assert.deepEqual(selectScorers(flag, bundle, silentLogger), [{ name: "queue-depth", weight: 2 }]);
});

test("selectScorers logs the scorers, a flag without effect and the selected policies' summaries", () => {
  const a = capture();
  selectScorers(options({ routingPolicy: "weighted", routingScorers: "queue-depth:2" }).o, [], a.log);
  assert.deepEqual(a.lines, ['level=info msg="Weighted routing scorers: queue-depth:2.0"']);
  const b = capture();
  const specs = selectScorers(
    options({ routingScorers: "queue-depth:2", admissionPolicy: "token-bucket" }).o,
    [],
    b.log,
  );
  assert.deepEqual(specs, DEFAULT_SCORERS, "round-robin keeps the default scorer list");
  assert.deepEqual(b.lines, [
    `level=warn msg="--routing-scorers has no effect when routing policy is \\"round-robin\\" (only applies to 'weighted')"`,
    'level=info msg="Token bucket: capacity=10000, refill rate=1000/s"',
  ]);
});

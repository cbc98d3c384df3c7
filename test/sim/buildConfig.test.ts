// The last stage of the configuration pipeline (src/sim/buildConfig.ts): the latency-model factory
// and the SimConfig built from validated options.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildSimConfig, clusterSettings, latencyFactory } from "../../src/sim/buildConfig.js";
import type { ScorerSpec } from "../../src/cluster/scorers/scorer.js";
import type { SimConfig } from "../../src/sim/simConfig.js";
import { validatePolicies, type PolicySettings } from "../../src/sim/validatePolicies.js";
import type { ResolvedLatency } from "../../src/latency/backends/backend.js";
import { BlackboxLatencyModel } from "../../src/latency/blackbox.js";
import type { LatencyModel } from "../../src/latency/model.js";
import { ConstructionError } from "../../src/util/errors.js";
import { silentLogger } from "../../src/util/log.js";
import { capture, options, userError } from "./helpers.js";
import { mkReq, state } from "../cluster/helpers.js";

/** The configuration of a run without PD, LoRA, speculation, autoscaling or gateway. */
function build(
  o: Parameters<typeof buildSimConfig>[0],
  lat: ResolvedLatency,
  horizon: number,
  scorers: readonly ScorerSpec[],
  policies: PolicySettings,
): Readonly<SimConfig> {
  const cluster = clusterSettings(o, scorers, policies);
  return buildSimConfig(o, lat, { latency: lat.build, horizon, cluster, policies }, { features: [] });
}

function resolved(over: Partial<ResolvedLatency> = {}): ResolvedLatency {
  return {
    backend: "blackbox",
    hardware: "H100",
    tp: 2,
    alpha: [1, 2, 3],
    beta: [4, 5, 6],
    totalKvBlocks: 700,
    maxModelLen: 4096,
    build: () => new BlackboxLatencyModel([1, 2, 3], [4, 5, 6]),
    ...over,
  };
}

test("latencyFactory returns the backend's factory and logs the setup", () => {
  const lat = resolved();
  const { log, lines } = capture();
  const { o } = options({ totalKvBlocks: 700 });
  assert.equal(latencyFactory(o, lat, Infinity, undefined, log), lat.build);
  assert.deepEqual(lines, [
    'level=info msg="Latency model: blackbox on H100 TP 2, 700 KV blocks, max-model-len 4096"',
    'level=info msg="Starting simulation with 700 KV blocks, horizon=9223372036854775807ticks, alphaCoeffs=[1,2,3], betaCoeffs=[4,5,6]"',
  ]);
});

test("latencyFactory names instance_0 in a construction error and warns about a short horizon", () => {
  const broken = resolved({
    build: (): LatencyModel => {
      throw new ConstructionError("bad coefficients");
    },
  });
  assert.throws(
    () => latencyFactory(options().o, broken, Infinity, undefined, silentLogger),
    (e: unknown) =>
      e instanceof ConstructionError &&
      e.message === "NewInstanceSimulator(instance_0): NewLatencyModel: bad coefficients",
  );
  const { log, lines } = capture();
  latencyFactory(options({ admissionLatency: 30, routingLatency: 20 }).o, resolved(), 40, undefined, log);
  assert.equal(
    lines.at(-1),
    'level=warn msg="horizon (40) < pipeline latency (50); no requests can complete — increase --horizon or reduce admission/routing latency"',
  );
});

test("latencyFactory: coefficients need a fittable backend", () => {
  const coefficients = { alpha: [0, 0, 0], beta: [1, 1, 1] };
  assert.equal(
    userError(() => latencyFactory(options().o, resolved(), Infinity, coefficients, silentLogger)),
    "latency model blackbox has no fittable coefficients",
  );
});

test("buildSimConfig carries the options, the latency results and the policy parameters", () => {
  const { o } = options({
    numInstances: 3,
    admissionPolicy: "token-bucket",
    tokenBucketCapacity: 321,
    routingPolicy: "weighted",
    priorityPolicy: "slo-tiered",
    sloBaseCritical: 42,
    sloThresholdStandard: 9,
    preemptionPolicy: "slo-aware",
    traceLevel: "decisions",
    counterfactualK: 2,
    sloPrefillThresholds: "batch:64",
  });
  const policies = validatePolicies(o, silentLogger);
  const lat = resolved();
  const scorers = [{ name: "queue-depth", weight: 1 }];
  const c = build(o, lat, 5000, scorers, policies);
  assert.equal(c.cluster.numInstances, 3);
  assert.ok(Object.isFrozen(c), "built in one piece: nothing is added afterwards");
  assert.throws(() => Object.assign(c, { horizon: 1 }), TypeError);
  assert.equal(c.horizon, 5000);
  assert.equal(c.engine.maxModelLen, 4096);
  assert.equal(c.latency, lat.build);
  assert.equal(c.cluster.admission.policy, "token-bucket");
  // The admission policy is bound to its typed parameters: a bucket of 321 admits 321 requests of
  // one token each at t = 0 (its refill rate 1000/s, the schema default, adds none at t = 0).
  const bucket = c.cluster.admission.build({ numInstances: 3 });
  const oneToken = mkReq("r", [1]);
  let admitted = 0;
  for (let i = 0; i < 400; i++) if (bucket.admit(oneToken, state([{}, {}, {}], 0))) admitted++;
  assert.equal(admitted, 321);
  let refilled = 0; // 0.1 s at the default 1000 tokens/s
  for (let i = 0; i < 400; i++)
    if (
      bucket.admit(
        oneToken,
        state(
          [0, 0, 0].map(() => ({})),
          100_000,
        ),
      )
    )
      refilled++;
  assert.equal(refilled, 100, "an untouched parameter keeps its schema default");
  assert.equal(c.cluster.routing.policy, "weighted");
  assert.deepEqual(
    c.cluster.routing.scorers.map((s) => [s.name, s.weight]),
    scorers.map((s) => [s.name, s.weight]),
  );
  assert.equal(c.policy.priority, "slo-tiered");
  assert.equal(c.policy.slo.baseCritical, 42);
  assert.equal(c.policy.slo.thresholdStandard, 9);
  assert.equal(c.policy.preemption, "slo-aware");
  assert.equal(c.trace.level, "decisions");
  assert.equal(c.trace.counterfactualK, 2);
  assert.deepEqual([...(c.engine.sloPrefillThresholds ?? new Map<string, number>())], [["batch", 64]]);
  assert.equal(c.cluster.routing.sloCacheWeights, policies.sloCacheWeights);
});

test("buildSimConfig: empty policy names fall back to the defaults", () => {
  const { o } = options({ admissionPolicy: "", routingPolicy: "", priorityPolicy: "", scheduler: "" });
  const lat = resolved();
  const c = build(o, lat, Infinity, [], validatePolicies(o, silentLogger));
  assert.deepEqual(
    [c.cluster.admission.policy, c.cluster.routing.policy, c.policy.priority, c.policy.scheduler, c.trace.level],
    ["always-admit", "round-robin", "constant", "fcfs", "none"],
  );
});

test("buildSimConfig: an empty policy name means the default, for preemption as for the others", () => {
  const { o } = options({ preemptionPolicy: "", scheduler: "" });
  const lat = resolved();
  const c = build(o, lat, 5000, [], validatePolicies(o, silentLogger));
  assert.equal(c.policy.preemption, "tail");
  assert.equal(c.policy.scheduler, "fcfs");
});

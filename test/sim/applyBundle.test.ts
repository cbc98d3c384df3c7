// The policy-bundle stage (src/sim/applyBundle.ts): a bundle fills the options not given
// explicitly, descriptor parameters included, and hands back its scorers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyBundle } from "../../src/sim/applyBundle.js";
import { silentLogger } from "../../src/util/log.js";
import { capture, cliError, options, tempFile, userError } from "./helpers.js";

const BUNDLE = tempFile(`admission:
  policy: token-bucket
  token_bucket_capacity: 500
  token_bucket_refill_rate: 25
routing:
  policy: weighted
  scorers:
    - name: queue-depth
      weight: 4
  slo_cache_weights:
    critical: 0.1
priority:
  policy: slo-tiered
  base_scores:
    critical: 20
  age_weight: 0.5
  urgency_thresholds_us:
    standard: 7
  bridge: floor
scheduler: priority-fcfs
slo_prefill_thresholds:
  batch: 64
preemption: slo-aware
`);

test("applyBundle without --policy-config changes nothing and returns no scorers", () => {
  const { o, explicit } = options();
  const r = applyBundle(o, explicit, silentLogger);
  assert.deepEqual(r.scorers, []);
  assert.equal(r.o, o);
});

test("applyBundle sets policies, descriptor parameters and extensions from the bundle", () => {
  const parsed = options({ policyConfig: BUNDLE });
  const { o, scorers } = applyBundle(parsed.o, parsed.explicit, silentLogger);
  assert.deepEqual(scorers, [{ name: "queue-depth", weight: 4 }]);
  assert.equal(parsed.o.admissionPolicy, "always-admit", "the parsed options are not written to");
  assert.ok(Object.isFrozen(o));
  assert.equal(o.admissionPolicy, "token-bucket");
  assert.equal(o.tokenBucketCapacity, 500);
  assert.equal(o.tokenBucketRefillRate, 25);
  assert.equal(o.routingPolicy, "weighted");
  assert.equal(o.priorityPolicy, "slo-tiered");
  assert.equal(o.scheduler, "priority-fcfs");
  assert.equal(o.sloBaseCritical, 20);
  assert.equal(o.sloBaseStandard, 5, "a tier the bundle leaves out keeps its default");
  assert.equal(o.sloAgeWeight, 0.5);
  assert.equal(o.sloThresholdStandard, 7);
  assert.equal(o.priorityBridge, "floor");
  assert.equal(o.preemptionPolicy, "slo-aware");
  assert.equal(o.sloCacheWeights, "critical:0.1");
  assert.equal(o.sloPrefillThresholds, "batch:64");
});

test("applyBundle: explicit options win over the bundle's values", () => {
  const parsed = options({
    policyConfig: BUNDLE,
    admissionPolicy: "always-admit",
    tokenBucketCapacity: 9,
    scheduler: "sjf",
    sloBaseCritical: 3,
    preemptionPolicy: "tail",
  });
  const { o } = applyBundle(parsed.o, parsed.explicit, silentLogger);
  assert.equal(o.admissionPolicy, "always-admit");
  assert.equal(o.tokenBucketCapacity, 9);
  assert.equal(o.tokenBucketRefillRate, 25, "a parameter not given explicitly still comes from the bundle");
  assert.equal(o.scheduler, "sjf");
  assert.equal(o.sloBaseCritical, 3);
  assert.equal(o.preemptionPolicy, "tail");
  assert.equal(o.routingPolicy, "weighted");
});

test("applyBundle logs the resulting policy choice", () => {
  const { o, explicit } = options({ policyConfig: BUNDLE, scheduler: "sjf" });
  const { log, lines } = capture();
  applyBundle(o, explicit, log);
  assert.deepEqual(lines, [
    'level=info msg="Policy config: admission=token-bucket, routing=weighted, priority=slo-tiered, scheduler=sjf"',
  ]);
});

test("applyBundle reports a bad bundle as the CLI does", async () => {
  const bad = tempFile("routing:\n  policy: nowhere\n");
  const { o, explicit } = options({ policyConfig: bad });
  const msg = userError(() => applyBundle(o, explicit, silentLogger));
  assert.match(msg, /^Invalid policy config: unknown routing policy "nowhere"; valid options: /);
  assert.equal(msg, await cliError(["--policy-config", bad]));
});

test("applyBundle: today's preemption.policy form names the preemption policy too", () => {
  const parsed = options({ policyConfig: tempFile("preemption:\n  policy: priority\n") });
  assert.equal(applyBundle(parsed.o, parsed.explicit, silentLogger).o.preemptionPolicy, "priority");
});

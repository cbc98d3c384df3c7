import { test } from "node:test";
import assert from "node:assert/strict";
import { refuseIncompatibleFeatures, type RunFeatures } from "../../src/sim/features.js";
import type { GatewayPlan } from "../../src/features/gateway/plan.js";
import { gateway } from "../../src/features/gateway/gateway.js";
import { loraConfig, withLora } from "../lora/helpers.js";
import { bindFeature } from "../../src/features/registry.js";
import { lora } from "../../src/features/lora/lora.js";
import { autoscale } from "../../src/features/autoscale/autoscale.js";
import { autoscaleSettings } from "../../src/autoscale/settings.js";
import { pd as pdFeature } from "../../src/features/pd/pd.js";
import { pdDeciders } from "../../src/pd/deciders.js";
import { routingPolicies } from "../../src/cluster/routing/routing.js";
import { DEFAULT_SLO_PARAMS } from "../../src/policy/sloTiers.js";

const none: RunFeatures = { deadlines: false };
const DEADLINES: RunFeatures = { deadlines: true };
/** One prefill and one decode instance, as the feature registry binds PD. */
const router = () =>
  routingPolicies.bind(
    "round-robin",
    {},
  )({
    numInstances: 2,
    blockSize: 16,
    scorers: [],
    sloCacheWeights: [0.75, 0.5, 0.25],
    slo: DEFAULT_SLO_PARAMS,
  });
const PD_ON = bindFeature(pdFeature, {
  counts: { prefill: 1, decode: 1, shared: 0, encode: 0 },
  numInstances: 2,
  blockSize: 16,
  decider: "always",
  buildDecider: pdDeciders.bind("always", {}),
  cacheSignalDelay: 0,
  transfer: { bytesPerToken: 4096, blockSize: 16, bandwidth: 25, baseLatency: 0.05, contention: false },
  prefillPolicy: router,
  decodePolicy: router,
  prefillPool: null,
  decodePool: null,
});
/** LoRA with adapters and a capacity, as the feature registry binds it. */
const LORA = [withLora(loraConfig({ a: 8 }))];
/** An autoscaler, as the feature registry binds it. */
const AUTOSCALE = bindFeature(autoscale, {
  settings: autoscaleSettings({ autoscaler: { interval_us: 1000 } }, undefined)!,
  context: { tp: 1, hardware: "gpu", model: "m", seed: 1n, horizon: 1e6, blockSize: 16, replicaCapacityTokens: 1600 },
});
const PD = "--prefill-instances/--decode-instances cannot be combined with";
const budgetsOnly: GatewayPlan = { settings: null, budgets: new Map([["t", 0.5]]), targets: null, priorities: {} };
const goodputOnly: GatewayPlan = { settings: null, budgets: null, targets: {}, priorities: {} };
/** The gateway with a plan, as the feature registry binds it. */
const withGateway = (plan: GatewayPlan) => bindFeature(gateway, { plan, runningSlots: 8 });
const BUDGETS = withGateway(budgetsOnly);

test("each feature runs on its own and with everything but PD", () => {
  refuseIncompatibleFeatures(none);
  refuseIncompatibleFeatures(DEADLINES, [...LORA, AUTOSCALE, BUDGETS]);
  refuseIncompatibleFeatures(none, [PD_ON]);
});

test("PD refuses LoRA, deadlines, autoscaling and the gateway queue or budgets with the messages users see", () => {
  assert.throws(() => refuseIncompatibleFeatures(none, [...LORA, PD_ON]), {
    message: "--lora-config cannot be combined with --prefill-instances/--decode-instances",
  });
  assert.throws(() => refuseIncompatibleFeatures(DEADLINES, [PD_ON]), {
    message: `${PD} client deadlines (--timeout, or a workload-spec client's timeout key)`,
  });
  assert.throws(() => refuseIncompatibleFeatures(none, [PD_ON, AUTOSCALE]), {
    message: `${PD} node pools or autoscaling (--policy-config, --model-autoscaler-interval-us)`,
  });
  assert.throws(() => refuseIncompatibleFeatures(none, [PD_ON, BUDGETS]), {
    message: `${PD} --flow-control or tenant budgets (--policy-config tenant_budgets)`,
  });
});

test("goodput counting alone runs with PD", () => {
  const goodput = withGateway(goodputOnly);
  assert.equal(goodput.inert, true);
  refuseIncompatibleFeatures(none, [PD_ON, goodput]);
});

test("with several refusals the first checked wins: LoRA, then deadlines, autoscaling, the gateway", () => {
  // Registration order: LoRA, PD, ..., autoscaling, the gateway.
  assert.throws(() => refuseIncompatibleFeatures(DEADLINES, [...LORA, PD_ON, AUTOSCALE, BUDGETS]), {
    message: /^--lora-config cannot be combined/,
  });
  assert.throws(() => refuseIncompatibleFeatures(DEADLINES, [PD_ON, AUTOSCALE, BUDGETS]), /client deadlines/);
  assert.throws(() => refuseIncompatibleFeatures(none, [PD_ON, AUTOSCALE, BUDGETS]), /node pools or autoscaling/);
  assert.throws(() => refuseIncompatibleFeatures(none, [PD_ON, BUDGETS]), /--flow-control or tenant/);
});

test("declared adapters without a capacity are inert and run with PD", () => {
  const config = loraConfig({ a: 8 });
  const inert = bindFeature(lora, { registry: config.adapters, active: null, reservedBytes: 0 });
  refuseIncompatibleFeatures(none, [inert, PD_ON]);
  assert.deepEqual(inert.incompatible, []);
});

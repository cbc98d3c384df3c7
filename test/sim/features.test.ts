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

const none: RunFeatures = { pd: false, deadlines: false };
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
  refuseIncompatibleFeatures({ pd: false, deadlines: true }, [...LORA, AUTOSCALE, BUDGETS]);
  refuseIncompatibleFeatures({ ...none, pd: true });
});

test("PD refuses LoRA, deadlines, autoscaling and the gateway queue or budgets with the messages users see", () => {
  const pd = { ...none, pd: true };
  assert.throws(() => refuseIncompatibleFeatures(pd, LORA), {
    message: "--lora-config cannot be combined with --prefill-instances/--decode-instances",
  });
  assert.throws(() => refuseIncompatibleFeatures({ ...pd, deadlines: true }), {
    message: `${PD} client deadlines (--timeout, or a workload-spec client's timeout key)`,
  });
  assert.throws(() => refuseIncompatibleFeatures(pd, [AUTOSCALE]), {
    message: `${PD} node pools or autoscaling (--policy-config, --model-autoscaler-interval-us)`,
  });
  assert.throws(() => refuseIncompatibleFeatures(pd, [BUDGETS]), {
    message: `${PD} --flow-control or tenant budgets (--policy-config tenant_budgets)`,
  });
});

test("goodput counting alone runs with PD", () => {
  const goodput = withGateway(goodputOnly);
  assert.equal(goodput.inert, true);
  refuseIncompatibleFeatures({ ...none, pd: true }, [goodput]);
});

test("with several refusals the first checked wins: LoRA, then deadlines, autoscaling, the gateway", () => {
  const all: RunFeatures = { pd: true, deadlines: true };
  assert.throws(() => refuseIncompatibleFeatures(all, [...LORA, AUTOSCALE, BUDGETS]), {
    message: /^--lora-config cannot be combined/,
  });
  assert.throws(() => refuseIncompatibleFeatures(all, [AUTOSCALE, BUDGETS]), /client deadlines/);
  assert.throws(
    () => refuseIncompatibleFeatures({ ...all, deadlines: false }, [AUTOSCALE, BUDGETS]),
    /node pools or autoscaling/,
  );
  assert.throws(() => refuseIncompatibleFeatures({ ...all, deadlines: false }, [BUDGETS]), /--flow-control or tenant/);
});

test("declared adapters without a capacity are inert and run with PD", () => {
  const config = loraConfig({ a: 8 });
  const inert = bindFeature(lora, { registry: config.adapters, active: null, reservedBytes: 0 });
  refuseIncompatibleFeatures({ ...none, pd: true }, [inert]);
  assert.deepEqual(inert.incompatible, []);
});

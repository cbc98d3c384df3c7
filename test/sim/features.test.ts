import { test } from "node:test";
import assert from "node:assert/strict";
import { refuseIncompatibleFeatures, type RunFeatures } from "../../src/sim/features.js";
import type { GatewayPlan } from "../../src/sim/gatewayConfig.js";

const none: RunFeatures = { lora: false, pd: false, deadlines: false, autoscale: false, gateway: undefined };
const PD = "--prefill-instances/--decode-instances cannot be combined with";
const budgetsOnly: GatewayPlan = { settings: null, budgets: new Map([["t", 0.5]]), targets: null, priorities: {} };
const goodputOnly: GatewayPlan = { settings: null, budgets: null, targets: {}, priorities: {} };

test("each feature runs on its own and with everything but PD", () => {
  refuseIncompatibleFeatures(none);
  refuseIncompatibleFeatures({ lora: true, pd: false, deadlines: true, autoscale: true, gateway: budgetsOnly });
  refuseIncompatibleFeatures({ ...none, pd: true });
});

test("PD refuses LoRA, deadlines, autoscaling and the gateway queue or budgets with the messages users see", () => {
  const pd = { ...none, pd: true };
  assert.throws(() => refuseIncompatibleFeatures({ ...pd, lora: true }), {
    message: "--lora-config cannot be combined with --prefill-instances/--decode-instances",
  });
  assert.throws(() => refuseIncompatibleFeatures({ ...pd, deadlines: true }), {
    message: `${PD} client deadlines (--timeout, or a workload-spec client's timeout key)`,
  });
  assert.throws(() => refuseIncompatibleFeatures({ ...pd, autoscale: true }), {
    message: `${PD} node pools or autoscaling (--policy-config, --model-autoscaler-interval-us)`,
  });
  assert.throws(() => refuseIncompatibleFeatures({ ...pd, gateway: budgetsOnly }), {
    message: `${PD} --flow-control or tenant budgets (--policy-config tenant_budgets)`,
  });
});

test("goodput counting alone runs with PD", () => {
  refuseIncompatibleFeatures({ ...none, pd: true, gateway: goodputOnly });
});

test("with several refusals the first checked wins: LoRA, then deadlines, autoscaling, the gateway", () => {
  const all: RunFeatures = { lora: true, pd: true, deadlines: true, autoscale: true, gateway: budgetsOnly };
  assert.throws(() => refuseIncompatibleFeatures(all), { message: /^--lora-config cannot be combined/ });
  assert.throws(() => refuseIncompatibleFeatures({ ...all, lora: false }), /client deadlines/);
  assert.throws(
    () => refuseIncompatibleFeatures({ ...all, lora: false, deadlines: false }),
    /node pools or autoscaling/,
  );
});

// Node pools, instance lifecycle and the autoscaler as a feature of a run (docs/autoscaling.md): its
// bundle sections and --model-autoscaler-interval-us, the instances it may add, the controller that
// owns the fleet, the fleet's samples for the time series and the `=== Autoscaler ===` block.

import type { Feature } from "../feature.js";
import { AutoscaleController } from "../../autoscale/controller.js";
import { renderAutoscaleSummary } from "../../autoscale/summary.js";
import { autoscaleParams as params, autoscaleRun, type AutoscaleParams, type AutoscaleRun } from "./settings.js";

export const autoscale: Feature<AutoscaleParams, AutoscaleRun> = {
  name: "autoscale",
  description: "node pools, instance lifecycle and an autoscaler that adds and drains instances",
  params,
  flags: [
    {
      key: "modelAutoscalerIntervalUs",
      flag: "--model-autoscaler-interval-us",
      type: "float",
      group: "cluster",
      help: "autoscaler tick interval in ticks; replaces the policy bundle's autoscaler.interval_us (0 = off; docs/autoscaling.md)",
    },
  ],
  bundleKeys: [
    { key: "nodePools", bundle: "node_pools" },
    { key: "instanceLifecycle", bundle: "instance_lifecycle" },
    { key: "autoscaler", bundle: "autoscaler" },
  ],
  settings: autoscaleRun,
  extraInstances: (run) => (run.settings.intervalUs > 0 ? run.settings.instanceBudget : 0),
  start(run, { buildInstance, trace, log }) {
    const controller = new AutoscaleController({ ...run.context, build: buildInstance, log, trace }, run.settings);
    return {
      extension: controller,
      fleet: controller,
      stdout: ({ end }) => renderAutoscaleSummary(controller, end),
    };
  },
};

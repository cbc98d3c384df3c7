import type { ClusterSimulator } from "../cluster/cluster.js";
import type { Instance } from "../instance/instance.js";
import type { Logger } from "../util/log.js";
import { AutoscaleController } from "../autoscale/controller.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import type { SimConfig } from "./simConfig.js";

/** Most instances the run can hold: the startup ones plus the autoscaler's budget. */
export function instanceCapacity(cfg: SimConfig): number {
  const a = cfg.autoscale;
  return cfg.cluster.numInstances + (a !== undefined && a.settings.intervalUs > 0 ? a.settings.instanceBudget : 0);
}

/** Hooks the autoscaler into the cluster when the run has one (docs/autoscaling.md); null otherwise. */
export function attachAutoscaler(
  cfg: SimConfig,
  cluster: ClusterSimulator,
  build: (k: number) => Instance,
  log: Logger,
  trace: DecisionTrace | null = null,
): AutoscaleController | null {
  const a = cfg.autoscale;
  if (a === undefined) return null;
  const controller = new AutoscaleController(
    {
      build,
      log,
      tp: a.tp,
      hardware: a.hardware,
      model: cfg.cluster.model !== undefined && cfg.cluster.model !== "" ? cfg.cluster.model : "default",
      seed: a.seed,
      horizon: cfg.horizon,
      blockSize: cfg.kv.blockSize,
      replicaCapacityTokens: cfg.kv.totalKvBlocks * cfg.kv.blockSize,
      trace,
    },
    a.settings,
  );
  cluster.attach(controller);
  controller.start();
  return controller;
}

// Library entry point.
export { simulate, type SimulationResult, type SimulateOptions } from "./sim/simulate.js";
export { renderStdout } from "./sim/renderStdout.js";
export { runCluster, type ClusterRun } from "./sim/runCluster.js";
export type { SimConfig } from "./sim/simConfig.js";
export type { RunInput, RunOptions } from "./config/runOptions.js";
export type { SimulationMetrics } from "./metrics/collect.js";
export type { MetricsBlock } from "./metrics/metricsBlock.js";
export * as workload from "./workload/index.js";
export type { PluginApi, PluginModule } from "./plugin/types.js";
export * as experiment from "./experiment/index.js";
export * as optimizer from "./optimize/index.js";
export * as planner from "./plan/index.js";
export * as report from "./report/index.js";
export * as calibration from "./calibration/index.js";

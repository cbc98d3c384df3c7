// Policy-bundle keys of node pools, instance lifecycle and the autoscaler (docs/autoscaling.md
// "Configuration"), their checks ("Invalid policy config: <key path> must be <rule>, got X") and
// the settings a run is built from.

import { z } from "zod";
import { anyNumber } from "../util/policyRegistry.js";
import { UserError } from "../util/errors.js";
import type { DelaySpec, NodePoolSpec } from "../infra/nodePools.js";
import { analyzers, actuators, collectors, drainPolicies, engines, stabilizers } from "./registries.js";
import "./builtins.js";

const Delay = z.strictObject({ mean: anyNumber.optional(), stddev: anyNumber.optional() });
const int = z.number().int();

export const NodePoolBundle = z.strictObject({
  name: z.string().optional(),
  gpu_type: z.string().optional(),
  gpus_per_node: int.optional(),
  gpu_memory_gib: anyNumber.optional(),
  initial_nodes: int.optional(),
  min_nodes: int.optional(),
  max_nodes: int.optional(),
  provisioning_delay: Delay.optional(),
  cost_per_hour: anyNumber.optional(),
});

export const LifecycleBundle = z.strictObject({
  loading_delay: Delay.optional(),
  warm_start_initial_instances: z.boolean().optional(),
  drain_policy: z.string().optional(),
});

export const AutoscalerBundle = z.strictObject({
  interval_us: anyNumber.optional(),
  scale_up_stabilization_window_us: anyNumber.optional(),
  scale_down_stabilization_window_us: anyNumber.optional(),
  hpa_scrape_delay: Delay.optional(),
  analyzer: z.looseObject({ name: z.string().optional() }).optional(),
  collector: z.string().optional(),
  engine: z.string().optional(),
  stabilization: z.string().optional(),
  actuator: z.string().optional(),
  min_replicas: int.optional(),
  max_replicas: int.optional(),
  instance_budget: int.optional(),
});

/** The bundle sections this module reads. */
export interface InfraBundle {
  node_pools?: z.infer<typeof NodePoolBundle>[] | undefined;
  instance_lifecycle?: z.infer<typeof LifecycleBundle> | undefined;
  autoscaler?: z.infer<typeof AutoscalerBundle> | undefined;
}

export interface AutoscaleSettings {
  /** Tick interval in ticks; 0 = no autoscaler (node pools and lifecycle still apply). */
  intervalUs: number;
  upWindowUs: number;
  downWindowUs: number;
  scrapeDelay: DelaySpec;
  collector: string;
  analyzer: string;
  analyzerParams: Record<string, unknown>;
  engine: string;
  stabilization: string;
  actuator: string;
  minReplicas: number;
  /** 0 = no limit. */
  maxReplicas: number;
  /** Most instances the autoscaler creates in one run. */
  instanceBudget: number;
  nodePools: NodePoolSpec[];
  loadingDelay: DelaySpec;
  warmStart: boolean;
  drainPolicy: string;
}

const fail = (msg: string): never => {
  throw new UserError(`Invalid policy config: ${msg}`);
};

function finiteAtLeast0(key: string, v: number | undefined): number {
  if (v === undefined) return 0;
  if (!(Number.isFinite(v) && v >= 0)) fail(`${key} must be finite and >= 0, got ${v}`);
  return v;
}

function delay(key: string, d: z.infer<typeof Delay> | undefined): DelaySpec {
  return { mean: finiteAtLeast0(`${key}.mean`, d?.mean), stddev: finiteAtLeast0(`${key}.stddev`, d?.stddev) };
}

function checkName(key: string, name: string, valid: string[]): string {
  if (!valid.includes(name)) fail(`unknown ${key} "${name}"; valid options: ${valid.join(", ")}`);
  return name;
}

/** The pool's hardware: which GPU, how many per node, and their memory. */
function poolHardware(
  p: z.infer<typeof NodePoolBundle>,
  at: string,
): { gpuType: string; gpusPerNode: number; mem: number } {
  const gpuType = p.gpu_type ?? "";
  if (gpuType === "") fail(`${at}: gpu_type must not be empty`);
  const gpusPerNode = p.gpus_per_node ?? 0;
  if (gpusPerNode < 1) fail(`${at}: gpus_per_node must be >= 1, got ${gpusPerNode}`);
  const mem = p.gpu_memory_gib ?? 0;
  if (!(Number.isFinite(mem) && mem > 0)) fail(`${at}: gpu_memory_gib must be finite and > 0, got ${mem}`);
  return { gpuType, gpusPerNode, mem };
}

/** The pool's node counts: initial and min must fit under max. */
function poolNodeCounts(p: z.infer<typeof NodePoolBundle>, at: string): { initial: number; min: number; max: number } {
  const initial = p.initial_nodes ?? 0;
  const min = p.min_nodes ?? 0;
  const max = p.max_nodes ?? 0;
  if (initial < 0) fail(`${at}: initial_nodes must be >= 0, got ${initial}`);
  if (min < 0) fail(`${at}: min_nodes must be >= 0, got ${min}`);
  if (max < initial) fail(`${at}: max_nodes (${max}) must be >= initial_nodes (${initial})`);
  if (max < min) fail(`${at}: max_nodes (${max}) must be >= min_nodes (${min})`);
  return { initial, min, max };
}

function pool(p: z.infer<typeof NodePoolBundle>, k: number, seen: Set<string>): NodePoolSpec {
  const name = p.name ?? "";
  if (name === "") fail(`node_pools[${k}]: name must not be empty`);
  const at = `node_pools[${k}] "${name}"`;
  if (seen.has(name)) fail(`duplicate pool name "${name}"`);
  seen.add(name);
  const { gpuType, gpusPerNode, mem } = poolHardware(p, at);
  const { initial, min, max } = poolNodeCounts(p, at);
  const cost = p.cost_per_hour ?? 0;
  if (!(Number.isFinite(cost) && cost >= 0)) fail(`${at}: cost_per_hour must be finite and >= 0, got ${cost}`);
  const provisioningDelay = delay(`${at}: provisioning_delay`, p.provisioning_delay);
  return {
    name,
    gpuType,
    gpusPerNode,
    gpuMemoryGib: mem,
    initialNodes: initial,
    minNodes: min,
    maxNodes: max,
    provisioningDelay,
    costPerHour: cost,
  };
}

/**
 * Shortest tick interval, µs: below it a run spends its time in ticks that see the same fleet (docs/autoscaling.md).
 */
export const MIN_AUTOSCALER_INTERVAL_US = 1000;

function checkIntervalFloor(intervalUs: number, fromFlag: boolean): void {
  if (intervalUs === 0 || intervalUs >= MIN_AUTOSCALER_INTERVAL_US) return;
  const rule = `must be 0 (off) or at least ${MIN_AUTOSCALER_INTERVAL_US} µs, got ${intervalUs}`;
  if (fromFlag) throw new UserError(`--model-autoscaler-interval-us ${rule}`);
  fail(`autoscaler.interval_us ${rule}`);
}

function checkFlagInterval(flagInterval: number | undefined): void {
  if (flagInterval !== undefined && !(Number.isFinite(flagInterval) && flagInterval >= 0)) {
    throw new UserError(`--model-autoscaler-interval-us must be a finite number >= 0 (0 = off), got ${flagInterval}`);
  }
}

/** Whether the run autoscales: the bundle has one of the three sections, or the interval is on. */
function hasAutoscaling(b: InfraBundle, intervalUs: number): boolean {
  return (
    b.autoscaler !== undefined || b.node_pools !== undefined || b.instance_lifecycle !== undefined || intervalUs > 0
  );
}

function replicaLimits(a: z.infer<typeof AutoscalerBundle>): {
  minReplicas: number;
  maxReplicas: number;
  instanceBudget: number;
} {
  const minReplicas = a.min_replicas ?? 1;
  if (minReplicas < 1) fail(`autoscaler.min_replicas must be >= 1, got ${minReplicas}`);
  const maxReplicas = a.max_replicas ?? 0;
  if (maxReplicas !== 0 && maxReplicas < minReplicas)
    fail(`autoscaler.max_replicas (${maxReplicas}) must be 0 (no limit) or >= min_replicas (${minReplicas})`);
  const instanceBudget = a.instance_budget ?? 1024;
  if (instanceBudget < 0) fail(`autoscaler.instance_budget must be >= 0, got ${instanceBudget}`);
  return { minReplicas, maxReplicas, instanceBudget };
}

/**
 * The settings of a run from its bundle and --model-autoscaler-interval-us (given: it replaces
 * interval_us); null when the bundle has none of the three sections and the flag does not enable
 * the autoscaler (the run is then exactly a run without autoscaling).
 */
export function autoscaleSettings(b: InfraBundle, flagInterval: number | undefined): AutoscaleSettings | null {
  checkFlagInterval(flagInterval);
  const a = b.autoscaler ?? {};
  const intervalUs = flagInterval ?? finiteAtLeast0("autoscaler.interval_us", a.interval_us);
  if (!hasAutoscaling(b, intervalUs)) return null;
  const upWindowUs = finiteAtLeast0("autoscaler.scale_up_stabilization_window_us", a.scale_up_stabilization_window_us);
  const downWindowUs = finiteAtLeast0(
    "autoscaler.scale_down_stabilization_window_us",
    a.scale_down_stabilization_window_us,
  );
  const scrapeDelay = delay("autoscaler.hpa_scrape_delay", a.hpa_scrape_delay);
  const analyzer = checkName("autoscaler analyzer", a.analyzer?.name ?? "saturation", analyzers.names());
  const { name: _name, ...analyzerParams } = a.analyzer ?? {};
  analyzers.get(analyzer)!.validate(analyzerParams);
  const { minReplicas, maxReplicas, instanceBudget } = replicaLimits(a);
  checkIntervalFloor(intervalUs, flagInterval !== undefined);
  const seen = new Set<string>();
  const nodePools = (b.node_pools ?? []).map((p, k) => pool(p, k, seen));
  const lc = b.instance_lifecycle ?? {};
  return {
    intervalUs: Math.trunc(intervalUs),
    upWindowUs,
    downWindowUs,
    scrapeDelay,
    collector: checkName("autoscaler collector", a.collector ?? "default", collectors.names()),
    analyzer,
    analyzerParams,
    engine: checkName("autoscaler engine", a.engine ?? "unlimited", engines.names()),
    stabilization: checkName("autoscaler stabilization", a.stabilization ?? "window", stabilizers.names()),
    actuator: checkName("autoscaler actuator", a.actuator ?? "direct", actuators.names()),
    minReplicas,
    maxReplicas,
    instanceBudget,
    nodePools,
    loadingDelay: delay("instance_lifecycle.loading_delay", lc.loading_delay),
    warmStart: lc.warm_start_initial_instances ?? true,
    drainPolicy: checkName("drain policy", lc.drain_policy ?? "wait", drainPolicies.names()),
  };
}

import { BlackboxLatencyModel } from "../../src/latency/blackbox.js";
import { runCluster, type ClusterRun, type RunHooks } from "../../src/sim/runCluster.js";
import { DEFAULT_SCORERS, type SimConfig } from "../../src/sim/simConfig.js";
import type { ScorerSpec } from "../../src/cluster/scorers/scorer.js";
import { chooseScorers } from "../../src/cluster/scorers/scorer.js";
import { admissionPolicies } from "../../src/cluster/admission/admission.js";
import { routingPolicies } from "../../src/cluster/routing/routing.js";
import { priorityPolicies } from "../../src/policy/priority.js";
import { schedulers } from "../../src/policy/scheduler.js";
import "../../src/policy/builtins.js";
import "../../src/cluster/builtins.js";
import { DEFAULT_SLO_PARAMS } from "../../src/policy/sloTiers.js";
import { ArrayRequestSource, makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import { silentLogger } from "../../src/util/log.js";
import { bindFeature } from "../../src/features/registry.js";
import { kvCpuTier } from "../../src/features/kvCpuTier/kvCpuTier.js";

interface CpuTierOptions {
  kvCpuBlocks: number;
  kvOffloadThreshold: number;
  kvTransferBandwidth: number;
  kvTransferBaseLatency: number;
}

/** The CPU tier feature bound to the test's tier options; none without CPU blocks. */
function cpuTier(kv: Partial<CpuTierOptions> = {}): SimConfig["features"] {
  const cpuBlocks = kv.kvCpuBlocks ?? 0;
  if (cpuBlocks <= 0) return [];
  const settings = {
    cpuBlocks,
    offloadThreshold: kv.kvOffloadThreshold ?? 0.9,
    transferBandwidth: kv.kvTransferBandwidth ?? 100,
    transferBaseLatency: kv.kvTransferBaseLatency ?? 0,
  };
  return [bindFeature(kvCpuTier, settings)];
}

export const LLAMA_H100_TP2 = {
  alpha: [1601.350510688092, 3.512476196805965, 1805.5430360826988],
  beta: [6910.420479880494, 17.67057489844186, 2.8377471109943855],
};

/** Overrides of the test configuration, per group; alpha and beta replace the blackbox coefficients. */
export interface SimOverrides {
  alpha?: number[];
  beta?: number[];
  horizon?: number;
  latency?: SimConfig["latency"];
  engine?: Partial<SimConfig["engine"]>;
  /** GPU capacity, and a CPU tier when kvCpuBlocks > 0 (bound as the run options bind it). */
  kv?: Partial<SimConfig["kv"]> & Partial<CpuTierOptions>;
  cluster?: {
    numInstances?: number;
    admission?: { policy?: string; latency?: number };
    routing?: Partial<Omit<SimConfig["cluster"]["routing"], "build" | "scorers">> & { scorers?: readonly ScorerSpec[] };
  };
  policy?: Partial<Omit<SimConfig["policy"], "buildPriority" | "buildScheduler">>;
  trace?: Partial<SimConfig["trace"]>;
  /** Policy parameters by option key, read when the policies are bound (absent → defaults). */
  params?: Readonly<Record<string, unknown>>;
}

/** The cluster group: policies bound with `params`. */
function clusterSettings(over: SimOverrides, params: Readonly<Record<string, unknown>>): SimConfig["cluster"] {
  const admission = over.cluster?.admission?.policy ?? "always-admit";
  const routing = over.cluster?.routing?.policy ?? "round-robin";
  return {
    numInstances: over.cluster?.numInstances ?? 1,
    admission: {
      latency: 0,
      ...over.cluster?.admission,
      policy: admission,
      build: admissionPolicies.bind(admission, params),
    },
    routing: {
      latency: 0,
      sloCacheWeights: [0.75, 0.5, 0.25],
      snapshotRefreshInterval: 0,
      ...over.cluster?.routing,
      policy: routing,
      build: routingPolicies.bind(routing, params),
      scorers: chooseScorers(over.cluster?.routing?.scorers ?? DEFAULT_SCORERS, params),
    },
  };
}

export function simConfig(over: SimOverrides = {}): SimConfig {
  const alpha = over.alpha ?? [0, 0, 0];
  const beta = over.beta ?? [1000, 1, 1];
  const params = over.params ?? {};
  const priority = over.policy?.priority ?? "constant";
  const scheduler = over.policy?.scheduler ?? "fcfs";
  return {
    horizon: over.horizon ?? Infinity,
    latency: over.latency ?? (() => new BlackboxLatencyModel(alpha, beta)),
    engine: {
      maxRunning: 256,
      maxScheduledTokens: 2048,
      longPrefillThreshold: 0,
      sloPrefillThresholds: null,
      maxModelLen: 0,
      ...over.engine,
    },
    kv: { totalKvBlocks: over.kv?.totalKvBlocks ?? 1000, blockSize: over.kv?.blockSize ?? 16 },
    cluster: clusterSettings(over, params),
    policy: {
      preemption: "tail",
      priorityBridge: "none",
      slo: DEFAULT_SLO_PARAMS,
      ...over.policy,
      priority,
      buildPriority: priorityPolicies.bind(priority, params),
      scheduler,
      buildScheduler: schedulers.bind(scheduler, params),
    },
    trace: { level: "none", counterfactualK: 0, ...over.trace },
    features: cpuTier(over.kv),
  };
}

let tokenCounter = 1;
/** Fresh, never-repeating token IDs. */
export function freshTokens(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(tokenCounter++ % 128000);
  return out;
}

export function req(
  id: string,
  arrival: number,
  input: number[] | number,
  output: number,
  extra: Partial<WorkloadRequest> = {},
): WorkloadRequest {
  const inp = typeof input === "number" ? freshTokens(input) : input;
  return makeRequest(id, arrival, inp, freshTokens(output), extra);
}

export function run(cfg: SimConfig, reqs: WorkloadRequest[], hooks: RunHooks = {}): ClusterRun {
  const sorted = [...reqs].sort((a, b) => a.arrival - b.arrival);
  return runCluster(cfg, new ArrayRequestSource(sorted), silentLogger, hooks);
}

/** Ledger values of one request by ID. */
export function record(r: ClusterRun, id: string) {
  const l = r.ledger;
  for (let i = 0; i < l.size; i++) {
    if (l.ids[i] === id) {
      return {
        ttft: l.ttft[i]!,
        e2e: l.e2e[i]!,
        itl: l.itl[i]!,
        sched: l.sched[i]!,
        completed: l.isCompleted(i),
        registered: l.isRegistered(i),
      };
    }
  }
  throw new Error(`no request ${id}`);
}

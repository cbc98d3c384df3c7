import { BlackboxLatencyModel } from "../../src/latency/blackbox.js";
import { runCluster, type ClusterRun, type RunHooks } from "../../src/sim/runCluster.js";
import { DEFAULT_SCORERS, type SimConfig } from "../../src/sim/simConfig.js";
import { DEFAULT_SLO_PARAMS } from "../../src/policy/sloTiers.js";
import { ArrayRequestSource, makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import { silentLogger } from "../../src/util/log.js";

export const LLAMA_H100_TP2 = {
  alpha: [1601.350510688092, 3.512476196805965, 1805.5430360826988],
  beta: [6910.420479880494, 17.67057489844186, 2.8377471109943855],
};

export function simConfig(over: Partial<SimConfig> & { alpha?: number[]; beta?: number[] } = {}): SimConfig {
  const alpha = over.alpha ?? [0, 0, 0];
  const beta = over.beta ?? [1000, 1, 1];
  const { alpha: _a, beta: _b, ...rest } = over;
  return {
    numInstances: 1,
    horizon: Infinity,
    maxRunning: 256,
    maxScheduledTokens: 2048,
    longPrefillThreshold: 0,
    blockSize: 16,
    totalKvBlocks: 1000,
    kvCpuBlocks: 0,
    kvOffloadThreshold: 0.9,
    kvTransferBandwidth: 100,
    kvTransferBaseLatency: 0,
    maxModelLen: 0,
    latency: () => new BlackboxLatencyModel(alpha, beta),
    admissionPolicy: "always-admit",
    admissionLatency: 0,
    routingPolicy: "round-robin",
    routingLatency: 0,
    scorers: DEFAULT_SCORERS,
    sloCacheWeights: [0.75, 0.5, 0.25],
    priorityPolicy: "constant",
    scheduler: "fcfs",
    snapshotRefreshInterval: 0,
    priorityBridge: "none",
    slo: DEFAULT_SLO_PARAMS,
    sloPrefillThresholds: null,
    preemptionPolicy: "tail",
    traceLevel: "none",
    counterfactualK: 0,
    params: {},
    ...rest,
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

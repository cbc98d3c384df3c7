import type { LatencyModel } from "../latency/model.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";
import type { SloParams } from "../policy/sloTiers.js";

/** A fully resolved and validated simulation setup (what the cluster is built from). */
export interface SimConfig {
  numInstances: number;
  /** Last tick that is still simulated; Infinity = unbounded. */
  horizon: number;
  maxRunning: number;
  maxScheduledTokens: number;
  longPrefillThreshold: number;
  blockSize: number;
  totalKvBlocks: number;
  kvCpuBlocks: number;
  kvOffloadThreshold: number;
  kvTransferBandwidth: number;
  kvTransferBaseLatency: number;
  /** Longest prompt + output an instance serves; 0 = unlimited. */
  maxModelLen: number;
  /** Builds one latency model per instance. */
  latency: () => LatencyModel;
  admissionPolicy: string;
  admissionLatency: number;
  routingPolicy: string;
  routingLatency: number;
  scorers: ScorerSpec[];
  sloCacheWeights: [number, number, number];
  priorityPolicy: string;
  scheduler: string;
  snapshotRefreshInterval: number;
  priorityBridge: "none" | "hint" | "floor";
  slo: SloParams;
  sloPrefillThresholds: Map<string, number> | null;
  preemptionPolicy: "tail" | "slo-aware";
  traceLevel: "none" | "decisions";
  counterfactualK: number;
  /** Policy parameters by run-option key, read through each policy's schema (absent → default). */
  params: Readonly<Record<string, unknown>>;
}

export const DEFAULT_SCORERS: ScorerSpec[] = [
  { name: "prefix-affinity", weight: 3 },
  { name: "queue-depth", weight: 2 },
  { name: "kv-utilization", weight: 2 },
];

/** How logs print the unbounded horizon (Go's max int64). */
export const HORIZON_MAX_TEXT = "9223372036854775807";

// What flows through the autoscaler pipeline (docs/autoscaling.md "The autoscaler"):
// Collector → Analyzer → Engine → stabilization → Actuator.

import type { Instance } from "../instance/instance.js";

/** A hardware configuration a replica runs on. */
export interface Variant {
  gpu: string;
  tp: number;
}

/** One routable replica as the collector sees it. */
export interface ReplicaSignal {
  index: number;
  variant: Variant;
  cost: number;
  queueDepth: number;
  /** Requests routed to it and not finished. */
  inFlight: number;
  kvTokensInUse: number;
  kvCapacityTokens: number;
}

export interface ModelSignals {
  model: string;
  replicas: ReplicaSignal[];
  /** Replicas being placed or loading, and their KV capacity in tokens. */
  pendingReplicas: number;
  pendingCapacityTokens: number;
}

export interface VariantSummary extends Variant {
  cost: number;
  supply: number;
  demand: number;
  replicas: number;
}

export interface Analysis {
  model: string;
  requiredCapacity: number;
  spareCapacity: number;
  /** By cost ascending, then GPU name, then TP. */
  variants: VariantSummary[];
  totalSupply: number;
  totalDemand: number;
}

/** Delta > 0 adds replicas of the variant, < 0 drains them. */
export interface Decision {
  model: string;
  variant: Variant;
  delta: number;
  /** Why (the decision trace): the signal that triggered it. */
  reason?: string;
}

export interface Collector {
  collect(clock: number): ModelSignals[];
}

export interface Analyzer {
  /** Null: no signal (no routable replica). */
  analyze(s: ModelSignals): Analysis | null;
}

export interface EngineContext {
  /** Free GPU slots for a variant's GPU type (Infinity without node pools). */
  freeSlots(v: Variant): number;
}

export interface Engine {
  decide(a: Analysis): Decision | null;
}

export interface Stabilizer {
  /** The decisions that pass this tick (at most one per model and direction). */
  gate(now: number, decisions: readonly Decision[]): Decision[];
}

export interface ActuatorContext {
  scaleUp(model: string, variant: Variant, now: number, reason: string): void;
  /** Routable candidates to drain, least loaded first. */
  drainCandidates(model: string, variant: Variant): Instance[];
  drain(inst: Instance, now: number, reason: string): void;
}

export interface Actuator {
  apply(decisions: readonly Decision[], now: number): void;
}

/** What happens to a draining instance's work (docs/autoscaling.md "Instance lifecycle"). */
export interface DrainPolicy {
  /** Whether requests still waiting (never scheduled) go back to the router instead of waiting here. */
  readonly redirectWaiting: boolean;
}

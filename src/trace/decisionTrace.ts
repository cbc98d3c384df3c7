import type { InstanceSnapshot } from "../cluster/snapshot.js";

export interface AdmissionRecord {
  requestId: string;
  clock: number;
  admitted: boolean;
  reason: string;
}

export interface CandidateRecord {
  instanceId: string;
  score: number;
  queueDepth: number;
  batchSize: number;
  inFlight: number;
  kvUtilization: number;
  freeKvBlocks: number;
}

export interface RoutingRecord {
  requestId: string;
  clock: number;
  chosen: string;
  reason: string;
  scores: Record<string, number> | null;
  candidates: CandidateRecord[];
  regret: number;
}

/** PD: whether a routed request was split into prefill and decode (docs/prefill-decode.md "Decision traces"). */
export interface DisaggregationRecord {
  requestId: string;
  clock: number;
  disaggregate: boolean;
}

/** PD: one KV transfer that reached its decode instance. */
export interface KvTransferRecord {
  requestId: string;
  start: number;
  duration: number;
  numKvBlocks: number;
  prefillInstance: string;
  decodeInstance: string;
}

/** A scaling or lifecycle event of the autoscaler (docs/autoscaling.md "Outputs"). */
export interface ScalingRecord {
  clock: number;
  /** placed, node-provisioning, node-ready, scale-up, active, scale-down, redirect, terminated. */
  kind: string;
  /** The instance, or the node for node events. */
  instance: string;
  reason: string;
}

/**
 * In-memory decision trace (docs/behavior.md "Routing and scorers", decision trace). Tracing never
 * changes behavior.
 */
export class DecisionTrace {
  readonly admissions: AdmissionRecord[] = [];
  readonly routings: RoutingRecord[] = [];
  /** PD runs: the decider's answers, the prefill-pool routings (by parent ID) and the transfers. */
  readonly disaggregations: DisaggregationRecord[] = [];
  readonly prefillRoutings: RoutingRecord[] = [];
  readonly kvTransfers: KvTransferRecord[] = [];
  readonly scalings: ScalingRecord[] = [];
  constructor(readonly counterfactualK: number) {}

  recordAdmission(requestId: string, clock: number, admitted: boolean, reason: string): void {
    this.admissions.push({ requestId, clock, admitted, reason });
  }

  /**
   * Kept in time order, equal times in arrival order: instances run their events in batches, so a
   * termination can be noted after a later one of another instance.
   */
  recordScaling(clock: number, kind: string, instance: string, reason: string): void {
    let k = this.scalings.length;
    while (k > 0 && this.scalings[k - 1]!.clock > clock) k--;
    this.scalings.splice(k, 0, { clock, kind, instance, reason });
  }

  /** `chosen` and `scores` are by position in `snaps` (the decision's candidates). */
  recordRouting(
    requestId: string,
    clock: number,
    chosen: number,
    reason: string,
    scores: Float64Array | null,
    snaps: readonly InstanceSnapshot[],
  ): void {
    this.routings.push(this.routingRecord(requestId, clock, chosen, reason, scores, snaps));
  }

  /** A prefill-pool routing of a disaggregated request, recorded under its parent's ID. */
  recordPrefillRouting(
    requestId: string,
    clock: number,
    chosen: number,
    reason: string,
    scores: Float64Array | null,
    snaps: readonly InstanceSnapshot[],
  ): void {
    this.prefillRoutings.push(this.routingRecord(requestId, clock, chosen, reason, scores, snaps));
  }

  private routingRecord(
    requestId: string,
    clock: number,
    chosen: number,
    reason: string,
    scores: Float64Array | null,
    snaps: readonly InstanceSnapshot[],
  ): RoutingRecord {
    let scoreMap: Record<string, number> | null = null;
    if (scores !== null) {
      scoreMap = {};
      for (let p = 0; p < snaps.length; p++) scoreMap[snaps[p]!.id] = scores[p]!;
    }
    let candidates: CandidateRecord[] = [];
    let regret = 0;
    const k = this.counterfactualK;
    if (k > 0) {
      const scored = snaps.map((s, p) => ({
        snap: s,
        score: scores !== null ? scores[p]! : -s.effectiveLoad,
      }));
      scored.sort((a, b) =>
        a.score !== b.score ? b.score - a.score : a.snap.id < b.snap.id ? -1 : a.snap.id > b.snap.id ? 1 : 0,
      );
      candidates = scored.slice(0, Math.min(k, snaps.length)).map(({ snap, score }) => ({
        instanceId: snap.id,
        score,
        queueDepth: snap.queueDepth,
        batchSize: snap.batchSize,
        inFlight: snap.inFlight,
        kvUtilization: snap.kvUtilization,
        freeKvBlocks: snap.freeKvBlocks,
      }));
      const best = scored[0]!.score;
      const chosenScore = scores !== null ? scores[chosen]! : -snaps[chosen]!.effectiveLoad;
      regret = Math.max(0, best - chosenScore);
    }
    return { requestId, clock, chosen: snaps[chosen]!.id, reason, scores: scoreMap, candidates, regret };
  }
}

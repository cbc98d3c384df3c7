import type { KvCache } from "../kv/kvCache.js";
import type { LatencyModel } from "../latency/model.js";
import type { DecodeCohort } from "./decodeCohort.js";
import type { StepExecution } from "./stepExecution.js";
import type { Request } from "../core/request.js";

/** What steady steps read and advance of their instance (an `Instance`). */
export interface SteadyHost {
  readonly kv: KvCache;
  readonly latency: LatencyModel;
  readonly horizon: number;
  readonly cfg: { readonly maxScheduledTokens: number };
  readonly waitQueue: { readonly length: number };
  stepCount: number;
  /** Steps taken here (a count for diagnostics and tests). */
  steadySteps: number;
  clock: number;
  lastStepDuration: number;
  queueSampleCount: number;
}

/**
 * Runs, without events, the steps from `t` on in which only the decode cohort works
 * (docs/architecture.md "Steady steps"): no request outside the cohort runs or waits, the members
 * due at the step only need their token's KV placed (DecodeCohort.passDue), and the step starts
 * before `until()` (the first moment anything else could happen or be looked at) and before the
 * instance's next queued event. Such a step does exactly what the full step would: every member
 * adds a token, the step's ITL value is recorded, the wait-queue sample is taken (0). Returns the
 * start time of the first step not run here.
 */
export function runSteadySteps(
  host: SteadyHost,
  cohort: DecodeCohort,
  execution: StepExecution,
  visit: readonly Request[],
  nextEvent: number,
  t: number,
  until: () => number,
): number {
  // The cheap checks first: the cluster's bound is asked only when a steady step may follow.
  if (visit.length !== 0 || host.waitQueue.length !== 0 || cohort.count === 0 || t >= nextEvent) return t;
  const latency = host.latency;
  const kv = host.kv;
  const bound = until();
  const end = bound < nextEvent ? bound : nextEvent;
  const horizon = host.horizon;
  const maxTokens = host.cfg.maxScheduledTokens;
  while (t < end && t <= horizon) {
    const stepIdx = host.stepCount + 1;
    // Members due at this step are taken through it in place when that is all the step would do.
    if (cohort.dueAt(stepIdx) && !cohort.passDue(stepIdx, maxTokens)) break;
    host.stepCount = stepIdx;
    host.steadySteps++;
    host.clock = t;
    kv.setClock(t);
    host.queueSampleCount++;
    const d = latency.stepTimeWithDecodes!(visit, 0, cohort.count, cohort.piSum) + kv.consumeTransferLatency();
    host.lastStepDuration = d;
    execution.recordSteady(stepIdx, d, cohort.count);
    cohort.endStep();
    t += d;
  }
  return t;
}

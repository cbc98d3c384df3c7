// Hooks that let a fitter follow every step and request of an instance (docs/calibration.md
// "Fit"). Null in ordinary runs; the instance calls them only when one is attached.

import type { LatencyModel } from "../latency/model.js";
import type { Request } from "../core/request.js";

export interface StepProbe {
  /** The request entered the wait queue at `now`. */
  onQueued(instance: number, r: Request, now: number): void;
  /** Step `stepIdx` starts at `now`, lasts `duration`; batch[0..count) as `model` saw it. */
  onStep(
    instance: number,
    stepIdx: number,
    now: number,
    duration: number,
    batch: readonly Request[],
    count: number,
    model: LatencyModel,
  ): void;
  /** The step produced r's first token (again after a preemption). */
  onFirstToken(instance: number, r: Request, stepIdx: number): void;
  /** r completed in step `stepIdx`; its decode runs are still recorded on it. */
  onComplete(instance: number, r: Request, stepIdx: number): void;
}

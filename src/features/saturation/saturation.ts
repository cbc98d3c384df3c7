// The post-hoc saturation detectors as a feature of a run (docs/saturation.md): --detectors and its
// flags; when the run ends, the detectors label it from its request records and the steady
// completion ratio joins the metrics. `blis observe` runs the same analysis on measured records.

import { z } from "zod";
import type { Feature, FeatureEnd, FeatureRun } from "../feature.js";
import type { SimulationMetrics } from "../../metrics/collect.js";
import type { Logger } from "../../util/log.js";
import { probePlan, saturationPlan, type SaturationPlan } from "../../saturation/config.js";
import { labelRun, steadyCompletionRatio } from "../../saturation/runSaturation.js";
import type { SaturationAnalysis } from "../../saturation/analyze.js";
import { SATURATION_FLAGS } from "./flags.js";

export const saturationParams = z.object({
  detectors: z.string().default(""),
  saturationConfig: z.string().default(""),
  saturationReport: z.string().default(""),
  saturationFinalWindow: z.string().default(""),
  /**
   * Set by `blis saturation` on its probes (no flag): the backlog-drift window, seconds, and the
   * requests still in flight at the end counted as arrivals (docs/saturation.md "Finding the saturation rate").
   */
  saturationProbe: z.strictObject({ windowSec: z.number().positive() }).optional(),
});

export type SaturationParams = z.infer<typeof saturationParams>;

/** The detectors of one run: they label it when it ends. */
export class SaturationLabels implements FeatureRun {
  readonly extension = null;
  /** The labels and their trace, once the run has ended. */
  analysis: SaturationAnalysis | null = null;

  constructor(
    private readonly plan: SaturationPlan,
    private readonly log: Logger,
  ) {}

  /** Puts the labels in the cluster block (after every feature's results) and the steady completion ratio. */
  finish(metrics: SimulationMetrics, { users }: FeatureEnd): void {
    const labelled = labelRun(users, this.plan, metrics.cluster, (m) => this.log.warn(m));
    metrics.cluster = labelled.block;
    metrics.steadyCompletionRatio = steadyCompletionRatio(users);
    this.analysis = labelled.analysis;
  }
}

export const saturationDetectors: Feature<SaturationParams, SaturationPlan> = {
  name: "saturation",
  description: "labels a finished run STABLE, BACKLOGGED or OVERLOADED from its arrivals and completions",
  params: saturationParams,
  flags: SATURATION_FLAGS,
  settings: (p) => probePlan(saturationPlan(p), p.saturationProbe),
  start: (plan, { log }) => new SaturationLabels(plan, log),
};

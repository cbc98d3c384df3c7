import { RUN_DEFAULTS, type RunOptions } from "../config/runOptions.js";
import type { Coefficients, ResolvedLatency } from "../latency/backends/backend.js";
import { chooseScorers, type ScorerSpec } from "../cluster/scorers/scorer.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import type { LatencyModel } from "../latency/model.js";
import { preemptionPolicies } from "../policy/preemption.js";
import { ConstructionError, UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { HORIZON_MAX_TEXT, type ClusterSettings, type InstancePolicies, type SimConfig } from "./simConfig.js";
import type { PolicySettings } from "./validatePolicies.js";
import type { SloParams } from "../policy/sloTiers.js";

/** Stage: builds one latency model to surface construction errors, then logs the setup (step 11). */
export function latencyFactory(
  o: Readonly<RunOptions>,
  lat: ResolvedLatency,
  horizon: number,
  coefficients: Coefficients | undefined,
  log: Logger,
): () => LatencyModel {
  try {
    lat.build();
  } catch (e) {
    if (e instanceof ConstructionError) {
      throw new ConstructionError(`NewInstanceSimulator(instance_0): NewLatencyModel: ${e.message}`);
    }
    throw e;
  }
  let factory = lat.build;
  if (coefficients !== undefined) {
    if (lat.withCoefficients === undefined)
      throw new UserError(`latency model ${lat.backend} has no fittable coefficients`);
    factory = lat.withCoefficients(coefficients);
  }
  log.info(
    `Latency model: ${lat.backend} on ${lat.hardware || "?"} TP ${lat.tp}, ${lat.totalKvBlocks} KV blocks, ` +
      `max-model-len ${lat.maxModelLen > 0 ? lat.maxModelLen : "unlimited"}`,
  );

  log.info(
    `Starting simulation with ${lat.totalKvBlocks} KV blocks, horizon=${horizon === Infinity ? HORIZON_MAX_TEXT : horizon}ticks, ` +
      `alphaCoeffs=${JSON.stringify(lat.alpha)}, betaCoeffs=${JSON.stringify(lat.beta)}`,
  );
  const pipeline = o.admissionLatency + o.routingLatency;
  if (horizon > 0 && horizon < pipeline) {
    log.warn(
      `horizon (${horizon}) < pipeline latency (${pipeline}); no requests can complete — increase --horizon or reduce admission/routing latency`,
    );
  }
  return factory;
}

/** An empty policy name (accepted by validation) selects the option's default. */
function named(
  o: Readonly<RunOptions>,
  k: "admissionPolicy" | "routingPolicy" | "priorityPolicy" | "scheduler" | "preemptionPolicy",
): string {
  return o[k] || RUN_DEFAULTS[k];
}

/** Stage: the cluster's admission and routing, policies bound to their parameters (PD pools start from it). */
export function clusterSettings(
  o: Readonly<RunOptions>,
  scorerSpecs: readonly ScorerSpec[],
  p: PolicySettings,
): ClusterSettings {
  return {
    numInstances: o.numInstances,
    model: o.model,
    admission: {
      policy: named(o, "admissionPolicy"),
      build: admissionPolicies.bind(named(o, "admissionPolicy"), o),
      latency: o.admissionLatency,
    },
    routing: {
      policy: named(o, "routingPolicy"),
      build: routingPolicies.bind(named(o, "routingPolicy"), o),
      latency: o.routingLatency,
      scorers: chooseScorers(scorerSpecs, o),
      sloCacheWeights: p.sloCacheWeights,
      snapshotRefreshInterval: o.snapshotRefreshInterval,
    },
  };
}

/** What the feature stages resolved for the run; an absent part is off. */
export type RunParts = Pick<SimConfig, "features">;

/**
 * Stage: the configuration the cluster is built from, in one piece and frozen: every part is
 * derived before, by the stage that owns it, and none is added afterwards.
 */
export function buildSimConfig(
  o: Readonly<RunOptions>,
  lat: ResolvedLatency,
  run: { latency: () => LatencyModel; horizon: number; cluster: ClusterSettings; policies: PolicySettings },
  parts: RunParts,
): Readonly<SimConfig> {
  const p = run.policies;
  const config: SimConfig = {
    horizon: run.horizon,
    latency: run.latency,
    engine: {
      maxRunning: o.maxNumRunningReqs,
      maxScheduledTokens: o.maxNumScheduledTokens,
      longPrefillThreshold: o.longPrefillTokenThreshold,
      sloPrefillThresholds: p.sloPrefill,
      maxModelLen: lat.maxModelLen,
    },
    kv: {
      totalKvBlocks: lat.totalKvBlocks,
      blockSize: o.blockSizeInTokens,
    },
    cluster: run.cluster,
    policy: instancePolicies(o),
    trace: { level: p.tracing ? "decisions" : "none", counterfactualK: o.counterfactualK },
    ...parts,
  };
  return Object.freeze(config);
}

/** The instance-level policies, bound to their parameters, and the SLO tiers. */
function instancePolicies(o: Readonly<RunOptions>): InstancePolicies {
  return {
    priority: named(o, "priorityPolicy"),
    buildPriority: priorityPolicies.bind(named(o, "priorityPolicy"), o),
    scheduler: named(o, "scheduler"),
    buildScheduler: schedulers.bind(named(o, "scheduler"), o),
    preemption: preemptionPolicies.create(named(o, "preemptionPolicy"), o, {}),
    priorityBridge: o.priorityBridge as InstancePolicies["priorityBridge"],
    slo: sloParams(o),
  };
}

/** The SLO tiers the instance policies and the routers share. */
export function sloParams(o: Readonly<RunOptions>): SloParams {
  return {
    baseCritical: o.sloBaseCritical,
    baseStandard: o.sloBaseStandard,
    baseSheddable: o.sloBaseSheddable,
    ageWeight: o.sloAgeWeight,
    thresholdCritical: o.sloThresholdCritical,
    thresholdStandard: o.sloThresholdStandard,
    thresholdSheddable: o.sloThresholdSheddable,
  };
}

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
import { HORIZON_MAX_TEXT, type InstancePolicies, type SimConfig } from "./simConfig.js";
import type { PolicySettings } from "./validatePolicies.js";
import type { ActiveFeature } from "../features/registry.js";

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

/** Stage: the validated options as the configuration the cluster is built from. */
export function buildSimConfig(
  o: Readonly<RunOptions>,
  lat: ResolvedLatency,
  latency: () => LatencyModel,
  horizon: number,
  scorerSpecs: readonly ScorerSpec[],
  p: PolicySettings,
  features: readonly ActiveFeature[] = [],
): SimConfig {
  // An empty policy name (accepted by validation) selects the option's default.
  const named = (
    k: "admissionPolicy" | "routingPolicy" | "priorityPolicy" | "scheduler" | "preemptionPolicy",
  ): string => o[k] || RUN_DEFAULTS[k];
  return {
    horizon,
    latency,
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
      kvCpuBlocks: o.kvCpuBlocks,
      kvOffloadThreshold: o.kvOffloadThreshold,
      kvTransferBandwidth: o.kvTransferBandwidth,
      kvTransferBaseLatency: o.kvTransferBaseLatency,
    },
    cluster: {
      numInstances: o.numInstances,
      model: o.model,
      admission: {
        policy: named("admissionPolicy"),
        build: admissionPolicies.bind(named("admissionPolicy"), o),
        latency: o.admissionLatency,
      },
      routing: {
        policy: named("routingPolicy"),
        build: routingPolicies.bind(named("routingPolicy"), o),
        latency: o.routingLatency,
        scorers: chooseScorers(scorerSpecs, o),
        sloCacheWeights: p.sloCacheWeights,
        snapshotRefreshInterval: o.snapshotRefreshInterval,
      },
    },
    policy: {
      priority: named("priorityPolicy"),
      buildPriority: priorityPolicies.bind(named("priorityPolicy"), o),
      scheduler: named("scheduler"),
      buildScheduler: schedulers.bind(named("scheduler"), o),
      preemption: preemptionPolicies.create(named("preemptionPolicy"), o, {}),
      priorityBridge: o.priorityBridge as InstancePolicies["priorityBridge"],
      slo: {
        baseCritical: o.sloBaseCritical,
        baseStandard: o.sloBaseStandard,
        baseSheddable: o.sloBaseSheddable,
        ageWeight: o.sloAgeWeight,
        thresholdCritical: o.sloThresholdCritical,
        thresholdStandard: o.sloThresholdStandard,
        thresholdSheddable: o.sloThresholdSheddable,
      },
    },
    trace: { level: p.tracing ? "decisions" : "none", counterfactualK: o.counterfactualK },
    features,
  };
}

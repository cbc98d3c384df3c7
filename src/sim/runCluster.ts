import type { StepProbe } from "../instance/stepProbe.js";
import "../policy/builtins.js";
import "../cluster/builtins.js";
import { Instance, type InstanceObserver } from "../instance/instance.js";
import { createKvStore } from "../kv/createKvStore.js";
import { RequestLedger } from "../core/ledger.js";
import { collectMetrics, type SimulationMetrics } from "../metrics/collect.js";
import { ClusterSimulator, type ClusterObserver } from "../cluster/cluster.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import { DecisionTrace } from "../trace/decisionTrace.js";
import type { RequestSource } from "../core/workloadRequest.js";
import type { Logger } from "../util/log.js";
import type { SimConfig } from "./simConfig.js";
import { TimeSeriesRecorder, type TimeSeries } from "../metrics/timeSeries.js";

export interface RunHooks {
  instanceObserver?: InstanceObserver;
  /** Step and request hooks for fitting (docs/calibration.md "Fit"). */
  stepProbe?: StepProbe;
  clusterObserver?: ClusterObserver;
  /** Sample instance state every this many ticks of simulated time (0 = off). */
  timeSeriesIntervalUs?: number;
}

export interface ClusterRun {
  metrics: SimulationMetrics;
  ledger: RequestLedger;
  instances: Instance[];
  trace: DecisionTrace | null;
  /** Router in-flight counters at the end of the run. */
  inFlight: Int32Array;
  timeSeries: TimeSeries | null;
}

/** Builds the cluster from a resolved configuration, runs it to the end, and collects metrics. */
export function runCluster(cfg: SimConfig, source: RequestSource, log: Logger, hooks: RunHooks = {}): ClusterRun {
  const ledger = new RequestLedger();
  const instances: Instance[] = [];
  for (let k = 0; k < cfg.numInstances; k++) {
    const kv = createKvStore(cfg, log);
    const inst = new Instance(
      k,
      {
        maxRunning: cfg.maxRunning,
        maxScheduledTokens: cfg.maxScheduledTokens,
        longPrefillThreshold: cfg.longPrefillThreshold,
        blockSize: cfg.blockSize,
        sloPrefillThresholds: cfg.sloPrefillThresholds,
        preemptionPolicy: cfg.preemptionPolicy,
        priorityFloors: cfg.priorityBridge === "floor",
        maxModelLen: cfg.maxModelLen,
      },
      kv,
      cfg.latency(),
      priorityPolicies.create(cfg.priorityPolicy || "constant", cfg.params, { slo: cfg.slo }),
      schedulers.create(cfg.scheduler || "fcfs", cfg.params, {}),
      ledger,
      log,
    );
    if (hooks.instanceObserver) inst.observer = hooks.instanceObserver;
    if (hooks.stepProbe) inst.probe = hooks.stepProbe;
    instances.push(inst);
  }
  const admission = admissionPolicies.create(cfg.admissionPolicy || "always-admit", cfg.params, { numInstances: cfg.numInstances });
  const routing = routingPolicies.create(cfg.routingPolicy || "round-robin", cfg.params, {
    numInstances: cfg.numInstances,
    blockSize: cfg.blockSize,
    scorers: cfg.scorers,
    sloCacheWeights: cfg.sloCacheWeights,
    slo: cfg.slo,
    params: cfg.params,
  });
  const trace = cfg.traceLevel === "decisions" ? new DecisionTrace(cfg.counterfactualK) : null;
  const cluster = new ClusterSimulator(
    instances,
    admission,
    routing,
    source,
    ledger,
    {
      horizon: cfg.horizon,
      admissionLatency: cfg.admissionLatency,
      routingLatency: cfg.routingLatency,
      snapshotRefreshInterval: cfg.snapshotRefreshInterval,
      blockSize: cfg.blockSize,
      priorityBridge: cfg.priorityBridge,
      slo: cfg.slo,
      trace,
    },
    log,
  );
  if (hooks.clusterObserver) cluster.observer = hooks.clusterObserver;
  const recorder =
    hooks.timeSeriesIntervalUs && hooks.timeSeriesIntervalUs > 0
      ? new TimeSeriesRecorder(instances, cluster.inFlight, hooks.timeSeriesIntervalUs)
      : null;
  cluster.recorder = recorder;
  const stats = cluster.run();
  for (const inst of instances) {
    const expect = inst.waitQueue.length + inst.running.length;
    if (stats.inFlight[inst.index] !== expect) {
      log.warn(`${inst.id}: in-flight count ${stats.inFlight[inst.index]} differs from queued+running ${expect} at the end of the run`);
    }
  }
  const metrics = collectMetrics(instances, ledger, stats, trace, { priorityPolicy: cfg.priorityPolicy });
  if (metrics.cluster.completed_requests === 0) {
    log.warn(
      stats.rejected > 0
        ? `all ${stats.rejected} requests rejected by admission policy "${cfg.admissionPolicy}" — no requests completed`
        : "no requests completed — horizon may be too short or workload too small",
    );
  }
  return { metrics, ledger, instances, trace, inFlight: stats.inFlight, timeSeries: recorder?.series ?? null };
}

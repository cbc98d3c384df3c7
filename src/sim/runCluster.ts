import type { StepProbe } from "../instance/stepProbe.js";
import "../policy/builtins.js";
import "../cluster/builtins.js";
import { Instance, type InstanceObserver } from "../instance/instance.js";
import { createKvStore } from "../kv/createKvStore.js";
import { RequestLedger } from "../core/ledger.js";
import { collectMetrics, type SimulationMetrics } from "../metrics/collect.js";
import { ClusterSimulator, type ClusterObserver } from "../cluster/cluster.js";
import { OrderedLogger } from "../cluster/orderedLog.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import { DecisionTrace } from "../trace/decisionTrace.js";
import type { RequestSource } from "../core/workloadRequest.js";
import type { Request } from "../core/request.js";
import { SessionManager, type SessionPlan } from "../workload/index.js";
import { sessionMetrics } from "../metrics/sessions.js";
import type { Logger } from "../util/log.js";
import type { SimConfig } from "./simConfig.js";
import { TimeSeriesRecorder, type TimeSeries } from "../metrics/timeSeries.js";
import { outcomeWarning } from "./runOutcome.js";
import { ProgressSampler, SamplerPair, type ProgressHook } from "./progress.js";
import type { AutoscaleController } from "../autoscale/controller.js";
import { attachAutoscaler, instanceCapacity } from "./attachAutoscaler.js";
import { attachControlPlane, controlPlaneMetrics } from "./gatewayWiring.js";
import type { ControlPlane } from "../gateway/controlPlane.js";

export interface RunHooks {
  instanceObserver?: InstanceObserver;
  /** Step and request hooks for fitting (docs/calibration.md "Fit"). */
  stepProbe?: StepProbe;
  clusterObserver?: ClusterObserver;
  /** Sample instance state every this many ticks of simulated time (0 = off). */
  timeSeriesIntervalUs?: number;
  /** Progress snapshots during the run (sim/progress.ts). */
  progress?: ProgressHook;
  /** Most requests the workload produces, when known (0 = unknown); shown in progress snapshots. */
  requestCap?: number;
  /** Closed-loop sessions and virtual users of the workload. */
  sessions?: SessionPlan | null;
}

export interface ClusterRun {
  metrics: SimulationMetrics;
  ledger: RequestLedger;
  instances: Instance[];
  trace: DecisionTrace | null;
  /** Router in-flight counters at the end of the run. */
  inFlight: Int32Array;
  timeSeries: TimeSeries | null;
  /** The autoscaler and fleet of runs with node pools, lifecycle or autoscaling; null otherwise. */
  autoscaler: AutoscaleController | null;
  /** Tenant budgets and the gateway queue of runs that use them (docs/gateway.md); null otherwise. */
  controlPlane: ControlPlane | null;
}

/** Builds the cluster from a resolved configuration, runs it to the end, and collects metrics. */
export function runCluster(cfg: SimConfig, source: RequestSource, log: Logger, hooks: RunHooks = {}): ClusterRun {
  const ledger = new RequestLedger();
  const { kv, cluster: c, policy } = cfg;
  // Instance log lines keep their event order when the cluster runs an instance's events in a row.
  const instanceLog = new OrderedLogger(log);
  const leave: { fn: Instance["onLeave"] } = { fn: null };
  const build = (k: number): Instance => buildInstance(k, cfg, ledger, instanceLog, hooks, leave.fn);
  const instances: Instance[] = [];
  for (let k = 0; k < c.numInstances; k++) instances.push(build(k));
  const capacity = instanceCapacity(cfg);
  const admission = admissionPolicies.create(c.admission.policy, cfg.params, { numInstances: c.numInstances });
  const routing = routingPolicies.create(c.routing.policy, cfg.params, {
    numInstances: capacity,
    blockSize: kv.blockSize,
    scorers: c.routing.scorers,
    sloCacheWeights: c.routing.sloCacheWeights,
    slo: policy.slo,
    params: cfg.params,
  });
  const trace = cfg.trace.level === "decisions" ? new DecisionTrace(cfg.trace.counterfactualK) : null;
  const cluster = new ClusterSimulator(
    instances,
    admission,
    routing,
    source,
    ledger,
    {
      horizon: cfg.horizon,
      admissionLatency: c.admission.latency,
      routingLatency: c.routing.latency,
      snapshotRefreshInterval: c.routing.snapshotRefreshInterval,
      blockSize: kv.blockSize,
      priorityBridge: policy.priorityBridge,
      slo: policy.slo,
      trace,
      ...(c.model !== undefined ? { model: c.model } : {}),
      instanceLog,
      capacity,
    },
    log,
  );
  if (hooks.clusterObserver) cluster.observer = hooks.clusterObserver;
  const sessions = hooks.sessions ?? null;
  if (sessions !== null) {
    const manager = new SessionManager(sessions, log);
    const onLeave = (req: Request, t: number, dropped: boolean): void => {
      const next = manager.onEnd(req, t, dropped);
      if (next !== null) cluster.pushArrival(next);
    };
    for (const inst of instances) inst.onLeave = onLeave;
    leave.fn = onLeave;
  }
  const autoscaler = attachAutoscaler(cfg, cluster, instances, build, log, trace);
  const controlPlane = attachControlPlane(cfg, cluster, ledger, log);
  const recorder =
    hooks.timeSeriesIntervalUs && hooks.timeSeriesIntervalUs > 0
      ? new TimeSeriesRecorder(instances, cluster.inFlight, hooks.timeSeriesIntervalUs, autoscaler, controlPlane?.gateway ?? null)
      : null;
  const progress = hooks.progress !== undefined ? new ProgressSampler(hooks.progress, instances, cfg.horizon, hooks.requestCap ?? 0) : null;
  cluster.recorder = progress === null ? recorder : recorder === null ? progress : new SamplerPair(recorder, progress);
  const stats = cluster.run();
  if (progress !== null) hooks.progress!.onProgress(progress.snapshot(stats.clock, true));
  for (const inst of instances) {
    const expect = inst.waitQueue.length + inst.running.length;
    if (stats.inFlight[inst.index] !== expect) {
      log.warn(`${inst.id}: in-flight count ${stats.inFlight[inst.index]} differs from queued+running ${expect} at the end of the run`);
    }
  }
  const metrics = collectMetrics(instances, ledger, stats, trace, { priorityPolicy: policy.priority });
  if (sessions !== null) metrics.sessions = sessionMetrics(ledger, sessions.tags);
  if (controlPlane !== null) controlPlaneMetrics(controlPlane, cfg, metrics, ledger, log);
  const warning = outcomeWarning({ metrics, stats, instances, horizon: cfg.horizon, admissionPolicy: c.admission.policy });
  if (warning !== null) log.warn(warning);
  return { metrics, ledger, instances, trace, inFlight: stats.inFlight, timeSeries: recorder?.series ?? null, autoscaler, controlPlane };
}

/** Instance k, sharing the ledger and the ordered instance logger. */
function buildInstance(
  k: number,
  cfg: SimConfig,
  ledger: RequestLedger,
  instanceLog: OrderedLogger,
  hooks: RunHooks,
  onLeave: Instance["onLeave"],
): Instance {
  const { engine, kv, policy } = cfg;
  const inst = new Instance(
    k,
    {
      ...engine,
      blockSize: kv.blockSize,
      preemptionPolicy: policy.preemption,
      priorityFloors: policy.priorityBridge === "floor",
    },
    createKvStore(kv, instanceLog),
    cfg.latency(),
    priorityPolicies.create(policy.priority, cfg.params, { slo: policy.slo }),
    schedulers.create(policy.scheduler, cfg.params, {}),
    ledger,
    instanceLog,
  );
  if (hooks.instanceObserver) inst.observer = hooks.instanceObserver;
  if (hooks.stepProbe) inst.probe = hooks.stepProbe;
  inst.onLeave = onLeave;
  return inst;
}

import type { StepProbe } from "../instance/stepProbe.js";
import "../policy/builtins.js";
import "../gateway/builtins.js";
import { Instance, type InstanceObserver } from "../instance/instance.js";
import { createKvStore, type KvSettings } from "../kv/createKvStore.js";
import type { KvCache } from "../kv/kvCache.js";
import { RequestLedger } from "../core/ledger.js";
import { collectMetrics, type SimulationMetrics } from "../metrics/collect.js";
import { ClusterSimulator, type ClusterObserver } from "../cluster/cluster.js";
import { OrderedLogger } from "../cluster/orderedLog.js";
import { instanceParts, type ClusterExtension } from "../cluster/extension.js";
import { DecisionTrace } from "../trace/decisionTrace.js";
import type { RequestSource } from "../core/workloadRequest.js";
import { SessionManager, type EndedRequest, type SessionPlan } from "../workload/index.js";
import { sessionMetrics } from "../metrics/sessions.js";
import type { Logger } from "../util/log.js";
import type { SimConfig } from "./simConfig.js";
import { TimeSeriesRecorder, type TimeSeries } from "../metrics/timeSeries.js";
import { outcomeWarning } from "./runOutcome.js";
import { ProgressSampler, SamplerPair, type ProgressHook } from "./progress.js";
import {
  addFeatureResults,
  attachFeatures,
  featureExtensions,
  addFeatureMetrics,
  finishFeatures,
  featurePart,
  instanceCapacity,
  startFeatures,
  type StartedFeature,
} from "./featureWiring.js";
import type { InstanceRole, LeaveHandler } from "../features/feature.js";

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
  /** The run's registered features that were on, as started (src/features/); their outputs read them. */
  features: readonly StartedFeature[];
}

/** Builds the cluster from a resolved configuration, runs it to the end, and collects metrics. */
export function runCluster(cfg: SimConfig, source: RequestSource, log: Logger, hooks: RunHooks = {}): ClusterRun {
  const ledger = new RequestLedger();
  const { kv, cluster: c, policy } = cfg;
  // Instance log lines keep their event order when the cluster runs an instance's events in a row.
  const instanceLog = new OrderedLogger(log);
  const leave: { fn: Instance["onLeave"] } = { fn: null };
  // Closed-loop users send at the same tick (all at 0 without think time): one step chain for them.
  const oneStepChain = (hooks.sessions ?? null) !== null;
  const instances: Instance[] = [];
  const trace = cfg.trace.level === "decisions" ? new DecisionTrace(cfg.trace.counterfactualK) : null;
  // Features start before the instances: their extensions may give every instance a part.
  const started = startFeatures(cfg.features, { instances, buildInstance: (k) => build(k), trace, ledger, log });
  const parts = featureExtensions(started);
  const kvStore = featurePart(started, "kvStore") ?? ((gpu: KvSettings) => createKvStore(gpu));
  const role = featurePart(started, "instanceRole") ?? null;
  const build = (k: number): Instance =>
    buildInstance(k, cfg, {
      ledger,
      instanceLog,
      hooks,
      onLeave: leave.fn,
      oneStepChain,
      extensions: parts,
      kvStore,
      role: role?.(k) ?? null,
    });
  for (let k = 0; k < c.numInstances; k++) instances.push(build(k));
  const capacity = instanceCapacity(c.numInstances, cfg.features);
  const admission = c.admission.build({ numInstances: c.numInstances });
  const routing = c.routing.build({
    numInstances: capacity,
    blockSize: kv.blockSize,
    scorers: c.routing.scorers,
    sloCacheWeights: c.routing.sloCacheWeights,
    slo: policy.slo,
  });
  const cacheSignalDelay = featurePart(started, "cacheSignalDelay");
  const cluster = new ClusterSimulator(
    instances,
    admission,
    routing,
    source,
    ledger,
    clusterOptions(cfg, trace, instanceLog, cacheSignalDelay, capacity),
    log,
  );
  if (hooks.clusterObserver) cluster.observer = hooks.clusterObserver;
  const sessions = hooks.sessions ?? null;
  const onLeave = sessions !== null ? nextRoundOnLeave(sessions, cluster, log) : null;
  leave.fn = onLeave;
  wireLeave(instances, started, onLeave);
  attachFeatures(started, cluster);
  const recorder = timeSeriesRecorder(hooks, cluster, instances, started);
  const progress = progressSampler(hooks, instances, cfg.horizon);
  cluster.recorder = bothSamplers(recorder, progress);
  const stats = cluster.run();
  if (progress !== null) hooks.progress!.onProgress(progress.snapshot(stats.clock, true));
  checkInFlight(instances, stats.inFlight, featurePart(started, "pendingInFlight") ?? null, log);
  const projection = featurePart(started, "projectUsers")?.(ledger, instances) ?? null;
  const metrics = collectMetrics(instances, ledger, stats, trace, { priorityPolicy: policy.priority, pd: projection });
  const users = projection !== null ? projection.ledger : ledger;
  addRunMetrics(metrics, users, { sessions, started });
  const warning = outcomeWarning({
    metrics,
    stats,
    instances,
    horizon: cfg.horizon,
    admissionPolicy: c.admission.policy,
  });
  if (warning !== null) log.warn(warning);
  const timeSeries = recorder?.series ?? null;
  return {
    metrics,
    ledger: users,
    instances,
    trace,
    inFlight: stats.inFlight,
    timeSeries,
    features: started,
  };
}

/**
 * The simulator's options from the configuration (model and cache-signal delay only when set: a
 * feature's, PD's decider reading the caches).
 */
function clusterOptions(
  cfg: SimConfig,
  trace: DecisionTrace | null,
  instanceLog: OrderedLogger,
  cacheSignalDelay: number | undefined,
  capacity: number,
): ConstructorParameters<typeof ClusterSimulator>[5] {
  const { kv, cluster: c, policy } = cfg;
  return {
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
    ...(cacheSignalDelay !== undefined ? { cacheSignalDelay } : {}),
    capacity,
  };
}

/** Closed-loop sessions: when a request ends, its user's next round (if any) arrives. */
function nextRoundOnLeave(
  sessions: SessionPlan,
  cluster: ClusterSimulator,
  log: Logger,
): (req: EndedRequest, t: number, cancelled: boolean) => void {
  const manager = new SessionManager(sessions, log);
  return (req: EndedRequest, t: number, cancelled: boolean): void => {
    const next = manager.onEnd(req, t, cancelled);
    if (next !== null) cluster.pushArrival(next);
  };
}

/** The time-series recorder when the hooks ask for one (an interval > 0); null otherwise. */
function timeSeriesRecorder(
  hooks: RunHooks,
  cluster: ClusterSimulator,
  instances: Instance[],
  started: readonly StartedFeature[],
): TimeSeriesRecorder | null {
  if (!(hooks.timeSeriesIntervalUs && hooks.timeSeriesIntervalUs > 0)) return null;
  return new TimeSeriesRecorder(
    instances,
    cluster.inFlight,
    hooks.timeSeriesIntervalUs,
    featurePart(started, "fleet") ?? null,
    featurePart(started, "queue") ?? null,
  );
}

/** The progress sampler when the hooks take progress reports; null otherwise. */
function progressSampler(hooks: RunHooks, instances: Instance[], horizon: number): ProgressSampler | null {
  return hooks.progress !== undefined
    ? new ProgressSampler(hooks.progress, instances, horizon, hooks.requestCap ?? 0)
    : null;
}

/** The cluster's one sampler slot: whichever of the two exists, or a pair that feeds both. */
function bothSamplers(recorder: TimeSeriesRecorder | null, progress: ProgressSampler | null) {
  return progress === null ? recorder : recorder === null ? progress : new SamplerPair(recorder, progress);
}

/** The session, control-plane and features' parts of the metrics, in key order. */
function addRunMetrics(
  metrics: SimulationMetrics,
  users: RequestLedger,
  run: { sessions: SessionPlan | null; started: readonly StartedFeature[] },
): void {
  if (run.sessions !== null) metrics.sessions = sessionMetrics(users, run.sessions.tags);
  addFeatureMetrics(metrics, run.started, users);
  addFeatureResults(metrics, run.started, users);
  finishFeatures(metrics, run.started, users);
}

/**
 * Completion hooks: a feature's (PD's sub-requests) when one gives them, else every instance tells
 * the closed loop directly.
 */
function wireLeave(
  instances: readonly Instance[],
  started: readonly StartedFeature[],
  userLeave: LeaveHandler | null,
): void {
  const wire = featurePart(started, "wireLeave");
  if (wire !== undefined) wire(instances, userLeave);
  else if (userLeave !== null) for (const inst of instances) inst.onLeave = userLeave;
}

/** The router's in-flight counts against the instances' queues at the end of the run. */
function checkInFlight(
  instances: readonly Instance[],
  inFlight: Int32Array,
  pending: ((index: number) => number) | null,
  log: Logger,
): void {
  for (const inst of instances) {
    // A feature may count requests in flight that are in no queue yet (PD's decode picks).
    const expect = inst.waitQueue.length + inst.running.length + (pending !== null ? pending(inst.index) : 0);
    if (inFlight[inst.index] !== expect) {
      log.warn(
        `${inst.id}: in-flight count ${inFlight[inst.index]} differs from queued+running ${expect} at the end of the run`,
      );
    }
  }
}

/** What every instance of a run is built with beside the configuration. */
interface InstanceBuild {
  ledger: RequestLedger;
  instanceLog: OrderedLogger;
  hooks: RunHooks;
  onLeave: Instance["onLeave"];
  oneStepChain: boolean;
  extensions: readonly ClusterExtension[];
  /** The KV store of an instance with this GPU capacity. */
  kvStore: (gpu: KvSettings, log: OrderedLogger) => KvCache;
  /** What a feature builds it with (a PD pool's role and hardware); null: the run's configuration. */
  role: InstanceRole | null;
}

/** Instance k, sharing the ledger and the ordered instance logger. */
function buildInstance(k: number, cfg: SimConfig, b: InstanceBuild): Instance {
  const { engine, kv, policy } = cfg;
  const { ledger, instanceLog, hooks, onLeave, oneStepChain, extensions } = b;
  // PD pools may have their own latency model, KV capacity and max-model-len.
  const role = b.role;
  const store = b.kvStore(
    role?.totalKvBlocks !== undefined ? { ...kv, totalKvBlocks: role.totalKvBlocks } : kv,
    instanceLog,
  );
  const latency = role?.latency !== undefined ? role.latency() : cfg.latency();
  const decodes = role?.decodes ?? true;
  const inst = new Instance(
    k,
    {
      ...engine,
      ...(role?.maxModelLen !== undefined ? { maxModelLen: role.maxModelLen } : {}),
      blockSize: kv.blockSize,
      preemptionPolicy: policy.preemption,
      priorityFloors: policy.priorityBridge === "floor",
      ...(oneStepChain ? { oneStepChain } : {}),
      ...instanceParts(extensions, k, { kv: store, latency, decodes }),
    },
    store,
    latency,
    policy.buildPriority({ slo: policy.slo }),
    policy.buildScheduler({}),
    ledger,
    instanceLog,
  );
  if (hooks.instanceObserver) inst.observer = hooks.instanceObserver;
  if (hooks.stepProbe) inst.probe = hooks.stepProbe;
  inst.onLeave = onLeave;
  return inst;
}

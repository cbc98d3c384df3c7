import type { SessionMetrics } from "./sessions.js";
import type { Instance } from "../instance/instance.js";
import type { ClusterRunStats } from "../cluster/cluster.js";
import type { DecisionTrace, ScalingRecord } from "../trace/decisionTrace.js";
import type { RequestLedger } from "../core/ledger.js";
import { buildMetricsBlock, type BlockCounts, type MetricsBlock } from "./metricsBlock.js";
import { Histogram, distribution, jainIndex, type Distribution } from "./stats.js";
import { countHolBlocking, countPriorityInversions } from "./anomalies.js";
import type { GatewayCounts } from "../gateway/counters.js";
import type { TenantMetrics } from "./tenants.js";
import type { PdProjection } from "../pd/projection.js";
import type { PdMetrics } from "../pd/metrics.js";

export { requestRecords, type RequestRecord } from "./requestRecords.js";

export interface PerSloEntry {
  sloClass: string;
  ttft: Distribution;
  e2e: Distribution;
}

export interface TraceSummary {
  totalDecisions: number;
  admitted: number;
  rejected: number;
  uniqueTargets: number;
  targetDistribution: [string, number][];
  meanRegret: number;
  maxRegret: number;
  /** Scaling and lifecycle events of autoscaled runs (absent when there are none). */
  scaling?: ScalingRecord[];
}

/** Everything a run reports; stdout and the results file are rendered from this. */
export interface SimulationMetrics {
  numInstances: number;
  /** Per-instance blocks in index order (all instances; stdout prints those with completions). */
  instances: MetricsBlock[];
  cluster: MetricsBlock;
  anomalies: {
    priorityInversions: number;
    holBlocking: number;
    rejected: number;
    droppedUnservable: number;
    /** Requests no routable instance could take (their model is served nowhere); absent in older stored results. */
    routingRejections?: number;
    /** Requests that timed out at their client deadline; absent in older stored results. */
    timedOut?: number;
    /** Whether the run had client deadlines (the timeout line is printed even at 0). */
    deadlines?: boolean;
  };
  kv: {
    preemptionRate: number;
    cacheHitRate: number;
    kvThrashingRate: number;
    /** CPU-tier activity, summed over instances (null when no instance has a CPU tier). */
    tiered: { offloads: number; reloads: number; cpuHits: number; cpuMisses: number } | null;
  };
  perSlo: PerSloEntry[];
  /** Jain index over per-tenant throughput. */
  tenantFairness: number;
  trace: TraceSummary | null;
  /**
   * How many requests have a TTFT and a scheduling delay, cluster-wide: with nothing completed the
   * printed block shows null for a latency without samples. Absent in report data of older runs.
   */
  clusterSamples?: { ttft: number; schedulingDelay: number };
  /** Raw-tick distributions for fitness evaluation. */
  fitnessInputs: { ttft: Distribution; e2e: Distribution; completed: number; outputTokens: number; simEnded: number };
  /** Requests the workload produced; routed; rejected. */
  generated: number;
  routed: number;
  perInstanceRouted: number[];
  /** Whether every generated request arrived by the horizon (pipeline conservation applies). */
  allArrived: boolean;
  /**
   * Arrived requests in admission, routing or instance arrival delays at the horizon (neither injected nor rejected).
   */
  inTransit?: number;
  /** Session metrics of closed-loop runs (absent or null otherwise). */
  sessions?: SessionMetrics | null;
  /** Gateway queue and shed counters of runs with a control plane (docs/gateway.md); absent otherwise. */
  gateway?: GatewayCounts;
  /** Per-tenant block of runs with a control plane (null: no tenant completed anything). */
  tenants?: TenantMetrics | null;
  /** Goodput targets were configured (the per-SLO block prints even for one class). */
  goodputConfigured?: boolean;
  /**
   * Completions per second between the warm-up and the last arrival (metrics/sustained.ts); null
   * when that window is empty. Absent in stored results of older runs. Not a BLIS key.
   */
  sustainedResponsesPerSec?: number | null;
  /** Runs with --detectors: completions per arrival in the second half of the arrivals (docs/saturation.md). */
  steadyCompletionRatio?: number;
  /** Prefill/decode disaggregation (absent or null when no request was split). */
  pd?: PdMetrics | null;
}

export interface CollectOptions {
  priorityPolicy: string;
  /** PD runs: user-level rows and counts for the cluster (instances keep their sub-requests). */
  pd?: PdProjection | null;
}

export function collectMetrics(
  instances: readonly Instance[],
  ledger: RequestLedger,
  stats: ClusterRunStats,
  trace: DecisionTrace | null,
  opts: CollectOptions,
): SimulationMetrics {
  ledger.finalize();
  const n = instances.length;
  const samples = samplesByInstance(instances, ledger);
  const itlMaps = instances.map((inst) => {
    const m = new Map<number, number>();
    inst.pooledItl(m);
    return m;
  });
  const total = totalCounts(instances);
  const deadlines = total.withDeadline > 0;
  const blocks = instanceBlocks(instances, samples, itlMaps, deadlines);
  const pd = opts.pd ?? null;
  // PD: the cluster describes user requests, the instances their sub-requests.
  const users = pd !== null ? pd.ledger : ledger;
  if (pd !== null) {
    users.finalize();
    pd.correct(total);
  }
  const clusterSamples = pd !== null ? samplesByInstance(instances, users) : samples;
  const clusterE2e = sorted(clusterSamples.e2e.flat());
  const clusterTtft = sorted(clusterSamples.ttft.flat());
  const clusterSched = sorted(clusterSamples.sched.flat());
  const cluster = buildMetricsBlock(
    "cluster",
    total,
    {
      e2e: clusterE2e,
      ttft: clusterTtft,
      sched: clusterSched,
      itl: new Histogram(mergeItl(itlMaps)),
    },
    deadlines,
  );
  const { perSlo, tenantCompleted } = perClassSamples(users);

  return {
    numInstances: n,
    instances: blocks,
    cluster,
    anomalies: {
      ...anomalies(instances, users, opts, stats.rejected, total.dropped),
      routingRejections: stats.routingRejected,
      ...(deadlines || total.timedOut > 0 ? { timedOut: total.timedOut, deadlines: true } : {}),
    },
    kv: kvSummary(instances, total),
    perSlo,
    tenantFairness: jainIndex(tenantThroughput(tenantCompleted, total.simEnded / 1e6)),
    clusterSamples: { ttft: clusterTtft.length, schedulingDelay: clusterSched.length },
    trace: trace !== null ? summarizeTrace(trace) : null,
    fitnessInputs: {
      ttft: distribution(clusterTtft),
      e2e: distribution(clusterE2e),
      completed: total.completed,
      outputTokens: total.outputTokens,
      simEnded: total.simEnded,
    },
    generated: stats.generated,
    routed: stats.routed,
    perInstanceRouted: Array.from(stats.routedPerInstance),
    allArrived: stats.generated === stats.arrived,
    inTransit: stats.inTransit,
    ...(pd !== null ? { pd: pd.summary(total) } : {}),
  };
}

const sorted = (xs: number[]): Float64Array => Float64Array.from(xs).sort();

interface Samples {
  e2e: number[][];
  ttft: number[][];
  sched: number[][];
}

function instanceBlocks(
  instances: readonly Instance[],
  samples: Samples,
  itlMaps: readonly Map<number, number>[],
  deadlines: boolean,
): MetricsBlock[] {
  return instances.map((inst, k) =>
    buildMetricsBlock(
      inst.id,
      countsOf(inst),
      {
        e2e: sorted(samples.e2e[k]!),
        ttft: sorted(samples.ttft[k]!),
        sched: sorted(samples.sched[k]!),
        itl: new Histogram(itlMaps[k]!),
      },
      deadlines,
    ),
  );
}

function anomalies(
  instances: readonly Instance[],
  ledger: RequestLedger,
  opts: CollectOptions,
  rejected: number,
  droppedUnservable: number,
): SimulationMetrics["anomalies"] {
  // 0 under constant priority by definition (docs/behavior.md#c11).
  const inversions =
    opts.priorityPolicy === "constant" || opts.priorityPolicy === ""
      ? 0
      : countPriorityInversions(ledger, instances.length);
  const hol = countHolBlocking(
    instances.map((inst) => (inst.queueSampleCount > 0 ? inst.queueSampleSum / inst.queueSampleCount : 0)),
  );
  return { priorityInversions: inversions, holBlocking: hol, rejected, droppedUnservable };
}

/** Per-request samples (ticks) grouped by the instance that handled the request. */
function samplesByInstance(instances: readonly Instance[], ledger: RequestLedger): Samples {
  const e2e: number[][] = instances.map(() => []);
  const ttft: number[][] = instances.map(() => []);
  const sched: number[][] = instances.map(() => []);
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isRegistered(i)) continue;
    const k = ledger.instance[i]!;
    if (ledger.ttft[i]! >= 0) ttft[k]!.push(ledger.ttft[i]!);
    if (ledger.sched[i]! >= 0) sched[k]!.push(ledger.sched[i]!);
    if (ledger.isCompleted(i)) e2e[k]!.push(ledger.e2e[i]!);
  }
  return { e2e, ttft, sched };
}

function countsOf(inst: Instance): BlockCounts {
  return {
    completed: inst.completed,
    stillQueued: inst.waitQueue.length,
    stillRunning: inst.running.length,
    dropped: inst.droppedUnservable,
    inputTokens: inst.totalInputTokens,
    outputTokens: inst.totalOutputTokens,
    simEnded: inst.simEnded(),
    preemptions: inst.preemptionCount,
    kvAllocationFailures: inst.kvAllocationFailures,
    timedOut: inst.timedOut,
    withDeadline: inst.withDeadline,
  };
}

/** The cluster's counts: sums over instances, except the end time (the latest). */
function totalCounts(instances: readonly Instance[]): BlockCounts {
  const total: BlockCounts = {
    completed: 0,
    stillQueued: 0,
    stillRunning: 0,
    dropped: 0,
    inputTokens: 0,
    outputTokens: 0,
    simEnded: 0,
    preemptions: 0,
    kvAllocationFailures: 0,
    timedOut: 0,
    withDeadline: 0,
  };
  for (const inst of instances) {
    const c = countsOf(inst);
    total.completed += c.completed;
    total.stillQueued += c.stillQueued;
    total.stillRunning += c.stillRunning;
    total.dropped += c.dropped;
    total.inputTokens += c.inputTokens;
    total.outputTokens += c.outputTokens;
    total.simEnded = Math.max(total.simEnded, c.simEnded);
    total.preemptions += c.preemptions;
    total.kvAllocationFailures += c.kvAllocationFailures;
    total.timedOut += c.timedOut;
    total.withDeadline += c.withDeadline;
  }
  return total;
}

function mergeItl(itlMaps: readonly Map<number, number>[]): Map<number, number> {
  const clusterItl = new Map<number, number>();
  for (const m of itlMaps) for (const [v, c] of m) clusterItl.set(v, (clusterItl.get(v) ?? 0) + c);
  return clusterItl;
}

/** Hit and thrashing rates averaged over instances; CPU-tier counters summed. */
function kvSummary(instances: readonly Instance[], total: BlockCounts): SimulationMetrics["kv"] {
  let hit = 0;
  let thrash = 0;
  let tiered: SimulationMetrics["kv"]["tiered"] = null;
  for (const inst of instances) {
    hit += inst.kv.cacheHitRate();
    thrash += inst.kv.thrashingRate();
    const cpu = inst.kv.cpuTierStats();
    if (cpu !== null) {
      tiered ??= { offloads: 0, reloads: 0, cpuHits: 0, cpuMisses: 0 };
      tiered.offloads += cpu.offloads;
      tiered.reloads += cpu.reloads;
      tiered.cpuHits += cpu.cpuHits;
      tiered.cpuMisses += cpu.cpuMisses;
    }
  }
  return {
    preemptionRate: total.completed > 0 ? total.preemptions / total.completed : 0,
    cacheHitRate: hit / instances.length,
    kvThrashingRate: thrash / instances.length,
    tiered,
  };
}

/** Distributions per SLO class (sorted by name) and completions per tenant ("" → "default"). */
function perClassSamples(ledger: RequestLedger): { perSlo: PerSloEntry[]; tenantCompleted: Map<string, number> } {
  const sloTtft = new Map<string, number[]>();
  const sloE2e = new Map<string, number[]>();
  const tenantCompleted = new Map<string, number>();
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isRegistered(i)) continue;
    const cls = ledger.sloNames[ledger.slo[i]!]! || "default";
    if (ledger.ttft[i]! >= 0) push(sloTtft, cls, ledger.ttft[i]!);
    if (ledger.isCompleted(i)) {
      push(sloE2e, cls, ledger.e2e[i]!);
      const t = ledger.tenantNames[ledger.tenant[i]!]! || "default";
      tenantCompleted.set(t, (tenantCompleted.get(t) ?? 0) + 1);
    }
  }
  const classes = [...new Set([...sloTtft.keys(), ...sloE2e.keys()])].sort();
  const perSlo = classes.map((cls) => ({
    sloClass: cls,
    ttft: distribution(sorted(sloTtft.get(cls) ?? [])),
    e2e: distribution(sorted(sloE2e.get(cls) ?? [])),
  }));
  return { perSlo, tenantCompleted };
}

function tenantThroughput(tenantCompleted: ReadonlyMap<string, number>, duration: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [t, c] of tenantCompleted) out.set(t, duration > 0 ? c / duration : 0);
  return out;
}

function push(m: Map<string, number[]>, k: string, v: number): void {
  let a = m.get(k);
  if (a === undefined) m.set(k, (a = []));
  a.push(v);
}

function summarizeTrace(trace: DecisionTrace): TraceSummary {
  let admitted = 0;
  for (const a of trace.admissions) if (a.admitted) admitted++;
  const dist = new Map<string, number>();
  let sum = 0;
  let max = 0;
  for (const r of trace.routings) {
    dist.set(r.chosen, (dist.get(r.chosen) ?? 0) + 1);
    sum += r.regret;
    if (r.regret > max) max = r.regret;
  }
  return {
    totalDecisions: trace.admissions.length,
    admitted,
    rejected: trace.admissions.length - admitted,
    uniqueTargets: dist.size,
    targetDistribution: [...dist.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    meanRegret: trace.routings.length > 0 ? sum / trace.routings.length : 0,
    maxRegret: max,
    ...(trace.scalings.length > 0 ? { scaling: trace.scalings } : {}),
  };
}

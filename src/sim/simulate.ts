import "../policy/builtins.js";
import "../cluster/builtins.js";
import { RunOptionsSchema, type RunInput, type RunOptions } from "../config/runOptions.js";
import { resolveLatencyBackend } from "../config/latency/resolve.js";
import { loadPolicyBundle } from "../config/policyBundle.js";
import { mapToListText, parseRoutingScorers, parseSloCacheWeights, parseSloPrefillThresholds } from "../config/flagLists.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import type { FetchLike } from "../latency/modelConfig.js";
import { ConstructionError, UserError } from "../util/errors.js";
import { Logger, parseLogLevel, silentLogger } from "../util/log.js";
import { DEFAULT_SCORERS, type SimConfig } from "./simConfig.js";
import { runCluster, type ClusterRun, type RunHooks } from "./runCluster.js";
import { resolveWorkload } from "./resolveWorkload.js";
import { requestRecords, type RequestRecord, type SimulationMetrics } from "../metrics/collect.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import { loadPlugins } from "../plugin/loadPlugins.js";
import type { Coefficients } from "../config/latency/backend.js";
import type { RequestSource } from "../core/workloadRequest.js";

export interface SimulationResult {
  options: RunOptions;
  config: SimConfig;
  metrics: SimulationMetrics;
  /** The results-file object (cluster block plus per-request records). */
  resultsObject(): MetricsBlock & { requests?: RequestRecord[] };
  run: ClusterRun;
}

export interface SimulateOptions {
  logger?: Logger;
  hooks?: RunHooks;
  /** Record time series (as --report does) even without a report path. */
  recordTimeSeries?: boolean;
  /** Replaces the global fetch for model-config downloads (tests). */
  fetchImpl?: FetchLike;
  /** Requests given by the caller (trace replay) instead of the workload options. */
  workload?: { source: RequestSource; horizon: number };
  /** Coefficients replacing the resolved ones (fitting); the backend must be fittable. */
  coefficients?: Coefficients;
}

export const HORIZON_MAX_TEXT = "9223372036854775807";

/**
 * Runs one simulation from run options (the library form of `blis run`). Validation follows the
 * CLI's order (docs/behavior.md "Validation order and exit status"), so the first problem reported
 * is the one BLIS would report.
 */
export async function simulate(input: RunInput, so: SimulateOptions = {}): Promise<SimulationResult> {
  const scope: { dispose: () => void } = { dispose: () => undefined };
  try {
    return await simulateIn(scope, input, so);
  } finally {
    scope.dispose();
  }
}

async function simulateIn(scope: { dispose: () => void }, input: RunInput, so: SimulateOptions): Promise<SimulationResult> {
  const explicit = new Set(Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined));
  const parsed = RunOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.code === "unrecognized_keys" ? issue.keys[0]! : issue.path.join(".");
    throw new UserError(`invalid run option ${flagName(key)}: ${issue.code === "unrecognized_keys" ? "unknown option" : issue.message}`);
  }
  const o: RunOptions = { ...parsed.data };
  const level = parseLogLevel(o.log);
  if (level === null) throw new UserError(`Invalid log level: ${o.log}`);
  const log = so.logger ?? (input.log !== undefined ? new Logger(level) : silentLogger);

  // 1-2. Model.
  if (o.model === "") throw new UserError("LLM name not provided. Exiting simulation.");
  o.model = o.model.toLowerCase();

  // 3. Latency backend (docs/latency.md "Choosing a backend" and "Resolution").
  const lat = await resolveLatencyBackend(o, explicit, log, so.fetchImpl);
  o.totalKvBlocks = lat.totalKvBlocks;

  // 4. Workload.
  const wl = so.workload ?? resolveWorkload(o, explicit, log);

  // 5. Instance and batch limits.
  const positive: [keyof RunOptions, string][] = [
    ["numInstances", "--num-instances"],
    ["totalKvBlocks", "--total-kv-blocks"],
    ["blockSizeInTokens", "--block-size-in-tokens"],
    ["maxNumRunningReqs", "--max-num-running-reqs"],
    ["maxNumScheduledTokens", "--max-num-scheduled-tokens"],
  ];
  for (const [k, flag] of positive) {
    if (!((o[k] as number) > 0)) throw new UserError(`${flag} must be > 0, got ${o[k] as number}`);
  }
  if (o.longPrefillTokenThreshold < 0) {
    throw new UserError(`--long-prefill-token-threshold must be >= 0, got ${o.longPrefillTokenThreshold}`);
  }

  // 6. Plugins register extra policies before names are checked; then the policy bundle.
  const pluginOptions = parsePluginOptions(o.pluginOption);
  if (o.plugin.length > 0) scope.dispose = await loadPlugins(o.plugin, log, pluginOptions);
  else if (o.pluginOption.length > 0) throw new UserError("--plugin-option needs --plugin (no plugin is loaded)");
  let bundleScorers: { name: string; weight: number }[] = [];
  if (o.policyConfig !== "") {
    const b = loadPolicyBundle(o.policyConfig);
    const apply = <K extends keyof RunOptions>(k: K, v: RunOptions[K] | undefined, set: boolean): void => {
      if (set && v !== undefined && !explicit.has(k)) o[k] = v;
    };
    apply("admissionPolicy", b.admission?.policy, !!b.admission?.policy);
    apply("tokenBucketCapacity", b.admission?.token_bucket_capacity, b.admission?.token_bucket_capacity !== undefined);
    apply("tokenBucketRefillRate", b.admission?.token_bucket_refill_rate, b.admission?.token_bucket_refill_rate !== undefined);
    apply("admissionLoadThreshold", b.admission?.load_threshold, b.admission?.load_threshold !== undefined);
    apply("routingPolicy", b.routing?.policy, !!b.routing?.policy);
    apply("priorityPolicy", b.priority?.policy, !!b.priority?.policy);
    apply("scheduler", b.scheduler, !!b.scheduler);
    if (b.routing?.slo_cache_weights) apply("sloCacheWeights", mapToListText(b.routing.slo_cache_weights), true);
    const bs = b.priority?.base_scores;
    if (bs) {
      apply("sloBaseCritical", bs["critical"], bs["critical"] !== undefined);
      apply("sloBaseStandard", bs["standard"], bs["standard"] !== undefined);
      apply("sloBaseSheddable", bs["sheddable"], bs["sheddable"] !== undefined);
    }
    apply("sloAgeWeight", b.priority?.age_weight, b.priority?.age_weight !== undefined);
    const ut = b.priority?.urgency_thresholds_us;
    if (ut) {
      apply("sloThresholdCritical", ut["critical"], ut["critical"] !== undefined);
      apply("sloThresholdStandard", ut["standard"], ut["standard"] !== undefined);
      apply("sloThresholdSheddable", ut["sheddable"], ut["sheddable"] !== undefined);
    }
    apply("priorityBridge", b.priority?.bridge, !!b.priority?.bridge);
    if (b.slo_prefill_thresholds) apply("sloPrefillThresholds", mapToListText(b.slo_prefill_thresholds), true);
    apply("preemptionPolicy", b.preemption, !!b.preemption);
    bundleScorers = b.routing?.scorers ?? [];
    log.info(
      `Policy config: admission=${o.admissionPolicy}, routing=${o.routingPolicy}, priority=${o.priorityPolicy}, scheduler=${o.scheduler}`,
    );
  }

  // 7. Token bucket.
  if (o.admissionPolicy === "token-bucket") {
    if (!Number.isFinite(o.tokenBucketCapacity) || o.tokenBucketCapacity <= 0) {
      throw new UserError(`--token-bucket-capacity must be a finite value > 0, got ${o.tokenBucketCapacity}`);
    }
    if (!Number.isFinite(o.tokenBucketRefillRate) || o.tokenBucketRefillRate <= 0) {
      throw new UserError(`--token-bucket-refill-rate must be a finite value > 0, got ${o.tokenBucketRefillRate}`);
    }
  }

  // 8. Policy names, tracing.
  checkName("admission policy", o.admissionPolicy, admissionPolicies.names());
  checkName("routing policy", o.routingPolicy, routingPolicies.names());
  checkName("priority policy", o.priorityPolicy, priorityPolicies.names());
  checkName("scheduler", o.scheduler, schedulers.names());
  if (o.traceLevel !== "" && o.traceLevel !== "none" && o.traceLevel !== "decisions") {
    throw new UserError(`Unknown trace level "${o.traceLevel}". Valid: none, decisions`);
  }
  const tracing = o.traceLevel === "decisions";
  if (o.counterfactualK < 0) throw new UserError(`--counterfactual-k must be >= 0, got ${o.counterfactualK}`);
  if (o.counterfactualK > 0 && !tracing) log.warn("--counterfactual-k has no effect without --trace-level decisions");
  if (o.summarizeTrace && !tracing) log.warn("--summarize-trace has no effect without --trace-level decisions");
  if (tracing && !o.summarizeTrace) log.info("decision tracing is on; add --summarize-trace to print a summary");
  // Extension parameters.
  checkName("priority bridge", o.priorityBridge, ["floor", "hint", "none"]);
  checkName("preemption policy", o.preemptionPolicy, ["slo-aware", "tail"]);
  if (!Number.isFinite(o.admissionLoadThreshold) || o.admissionLoadThreshold < 0) {
    throw new UserError(`--admission-load-threshold must be a finite value >= 0, got ${o.admissionLoadThreshold}`);
  }
  for (const [k, flag] of [
    ["sloBaseCritical", "--slo-base-critical"],
    ["sloBaseStandard", "--slo-base-standard"],
    ["sloBaseSheddable", "--slo-base-sheddable"],
  ] as const) {
    if (!Number.isFinite(o[k])) throw new UserError(`${flag} must be a finite number, got ${o[k]}`);
  }
  if (!Number.isFinite(o.sloAgeWeight) || o.sloAgeWeight < 0) {
    throw new UserError(`--slo-age-weight must be a finite value >= 0, got ${o.sloAgeWeight}`);
  }
  for (const [k, flag] of [
    ["sloThresholdCritical", "--slo-threshold-critical"],
    ["sloThresholdStandard", "--slo-threshold-standard"],
    ["sloThresholdSheddable", "--slo-threshold-sheddable"],
  ] as const) {
    if (o[k] < 0) throw new UserError(`${flag} must be >= 0, got ${o[k]}`);
  }
  const sloCacheWeights = parseSloCacheWeights(o.sloCacheWeights);
  const sloPrefill = parseSloPrefillThresholds(o.sloPrefillThresholds);
  if (o.priorityPolicy === "slo-tiered" || o.priorityPolicy === "slo-class" || o.priorityBridge !== "none") {
    if (!(o.sloBaseCritical > o.sloBaseStandard && o.sloBaseStandard > o.sloBaseSheddable)) {
      log.warn("SLO base scores are not strictly decreasing from critical to sheddable");
    }
  }

  // 9. KV tiers and snapshots.
  if (o.kvCpuBlocks < 0) throw new UserError(`--kv-cpu-blocks must be >= 0, got ${o.kvCpuBlocks}`);
  if (!Number.isFinite(o.kvOffloadThreshold) || o.kvOffloadThreshold < 0 || o.kvOffloadThreshold > 1) {
    throw new UserError(`--kv-offload-threshold must be a finite value in [0, 1], got ${o.kvOffloadThreshold}`);
  }
  if (o.kvCpuBlocks > 0 && (!Number.isFinite(o.kvTransferBandwidth) || o.kvTransferBandwidth <= 0)) {
    throw new UserError(`--kv-transfer-bandwidth must be a finite value > 0, got ${o.kvTransferBandwidth}`);
  }
  if (o.kvTransferBaseLatency < 0) {
    throw new UserError(`--kv-transfer-base-latency must be >= 0, got ${o.kvTransferBaseLatency}`);
  }
  if (o.snapshotRefreshInterval < 0) {
    throw new UserError(`--snapshot-refresh-interval must be >= 0, got ${o.snapshotRefreshInterval}`);
  }

  // 10. Scorers and info lines.
  let scorerSpecs = DEFAULT_SCORERS;
  if (o.routingPolicy === "weighted") {
    const fromFlag = parseRoutingScorers(o.routingScorers);
    if (fromFlag !== null) scorerSpecs = fromFlag;
    else if (bundleScorers.length > 0) scorerSpecs = bundleScorers;
    log.info(`Weighted routing scorers: ${scorerSpecs.map((s) => `${s.name}:${s.weight.toFixed(1)}`).join(", ")}`);
  } else if (o.routingScorers !== "") {
    log.warn(`--routing-scorers has no effect when routing policy is "${o.routingPolicy}" (only applies to 'weighted')`);
  }
  if (o.admissionPolicy === "token-bucket") {
    log.info(`Token bucket: capacity=${o.tokenBucketCapacity}, refill rate=${o.tokenBucketRefillRate}/s`);
  }

  // 11. Latency model construction (BLIS reports these as a panic: exit status 2).
  try {
    lat.build();
  } catch (e) {
    if (e instanceof ConstructionError) {
      throw new ConstructionError(`NewInstanceSimulator(instance_0): NewLatencyModel: ${e.message}`);
    }
    throw e;
  }
  let latencyFactory = lat.build;
  if (so.coefficients !== undefined) {
    if (lat.withCoefficients === undefined) throw new UserError(`latency model ${lat.backend} has no fittable coefficients`);
    latencyFactory = lat.withCoefficients(so.coefficients);
  }
  log.info(
    `Latency model: ${lat.backend} on ${lat.hardware || "?"} TP ${lat.tp}, ${lat.totalKvBlocks} KV blocks, ` +
      `max-model-len ${lat.maxModelLen > 0 ? lat.maxModelLen : "unlimited"}`,
  );

  const horizon = wl.horizon;
  log.info(
    `Starting simulation with ${o.totalKvBlocks} KV blocks, horizon=${horizon === Infinity ? HORIZON_MAX_TEXT : horizon}ticks, ` +
      `alphaCoeffs=${JSON.stringify(lat.alpha)}, betaCoeffs=${JSON.stringify(lat.beta)}`,
  );
  const pipeline = o.admissionLatency + o.routingLatency;
  if (horizon > 0 && horizon < pipeline) {
    log.warn(
      `horizon (${horizon}) < pipeline latency (${pipeline}); no requests can complete — increase --horizon or reduce admission/routing latency`,
    );
  }
  if (o.admissionLatency < 0 || o.routingLatency < 0) {
    log.warn("negative admission/routing latency schedules pipeline stages earlier than their cause");
  }

  const config: SimConfig = {
    numInstances: o.numInstances,
    horizon,
    maxRunning: o.maxNumRunningReqs,
    maxScheduledTokens: o.maxNumScheduledTokens,
    longPrefillThreshold: o.longPrefillTokenThreshold,
    blockSize: o.blockSizeInTokens,
    totalKvBlocks: o.totalKvBlocks,
    kvCpuBlocks: o.kvCpuBlocks,
    kvOffloadThreshold: o.kvOffloadThreshold,
    kvTransferBandwidth: o.kvTransferBandwidth,
    kvTransferBaseLatency: o.kvTransferBaseLatency,
    maxModelLen: lat.maxModelLen,
    latency: latencyFactory,
    admissionPolicy: o.admissionPolicy || "always-admit",
    admissionLatency: o.admissionLatency,
    tokenBucketCapacity: o.tokenBucketCapacity,
    tokenBucketRefillRate: o.tokenBucketRefillRate,
    admissionLoadThreshold: o.admissionLoadThreshold,
    routingPolicy: o.routingPolicy || "round-robin",
    routingLatency: o.routingLatency,
    scorers: scorerSpecs,
    sloCacheWeights,
    priorityPolicy: o.priorityPolicy || "constant",
    scheduler: o.scheduler || "fcfs",
    snapshotRefreshInterval: o.snapshotRefreshInterval,
    priorityBridge: o.priorityBridge as SimConfig["priorityBridge"],
    slo: {
      baseCritical: o.sloBaseCritical,
      baseStandard: o.sloBaseStandard,
      baseSheddable: o.sloBaseSheddable,
      ageWeight: o.sloAgeWeight,
      thresholdCritical: o.sloThresholdCritical,
      thresholdStandard: o.sloThresholdStandard,
      thresholdSheddable: o.sloThresholdSheddable,
    },
    sloPrefillThresholds: sloPrefill,
    preemptionPolicy: o.preemptionPolicy as SimConfig["preemptionPolicy"],
    traceLevel: tracing ? "decisions" : "none",
    counterfactualK: o.counterfactualK,
  };

  const wallStart = process.hrtime.bigint();
  if (o.reportInterval <= 0) throw new UserError(`--report-interval must be > 0, got ${o.reportInterval}`);
  const sampling = o.report !== "" || so.recordTimeSeries === true ? o.reportInterval : 0;
  const run = runCluster(config, wl.source, log, { ...so.hooks, timeSeriesIntervalUs: sampling });
  const wall = Number(process.hrtime.bigint() - wallStart) / 1e9;
  log.info(`Generated ${run.metrics.generated} requests via unified workload pipeline`);
  log.info(`Simulation wall-clock time: ${wall.toFixed(3)}s`);
  log.info("Simulation complete.");

  return {
    options: o,
    config,
    metrics: run.metrics,
    run,
    resultsObject() {
      const reqs = requestRecords(run.ledger);
      const base: MetricsBlock & { requests?: RequestRecord[] } = { ...run.metrics.cluster };
      if (reqs.length > 0) base.requests = reqs;
      return base;
    },
  };
}

/** `plugin.key=value` entries → options per plugin name. */
function parsePluginOptions(entries: readonly string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const e of entries) {
    const m = /^([^.=]+)\.([^=]+)=(.*)$/.exec(e);
    if (m === null) throw new UserError(`--plugin-option: expected plugin.key=value, got "${e}"`);
    (out[m[1]!] ??= {})[m[2]!] = m[3]!;
  }
  return out;
}

function checkName(kind: string, name: string, valid: string[]): void {
  if (name === "") return;
  if (!valid.includes(name)) {
    throw new UserError(`Unknown ${kind} "${name}". Valid: ${valid.join(", ")}`);
  }
}

/** camelCase option key → its CLI flag. */
export function flagName(key: string): string {
  return "--" + key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

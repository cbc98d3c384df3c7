import "../policy/builtins.js";
import "../gateway/builtins.js";
import type { RunInput, RunOptions } from "../config/runOptions.js";
import { resolveLatencyBackend } from "../latency/backends/resolve.js";
import type { FetchLike } from "../latency/modelConfig.js";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { HORIZON_MAX_TEXT, type SimConfig } from "./simConfig.js";
import { runCluster, type ClusterRun, type RunHooks } from "./runCluster.js";
import { resolveWorkload, type ResolvedWorkload } from "./resolveWorkload.js";
import { requestRecords, type RequestRecord, type SimulationMetrics } from "../metrics/collect.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import { loadPlugins } from "../plugin/loadPlugins.js";
import { setBudget } from "../plugin/watch.js";
import { parseFitnessWeights } from "../metrics/fitness.js";
import type { Coefficients, ResolvedLatency } from "../latency/backends/backend.js";
import { flagName, parseRunInput } from "./parseOptions.js";
import { applyBundle } from "./applyBundle.js";
import { validatePipeline, validateLimits } from "./validateOptions.js";
import { selectScorers, validatePolicies, warnTierShedDefault } from "./validatePolicies.js";
import { buildSimConfig, clusterSettings, latencyFactory } from "./buildConfig.js";
import { sustainedWindow } from "../metrics/sustained.js";
import type { SaturationAnalysis } from "../saturation/analyze.js";
import { refuseIncompatibleFeatures } from "./features.js";
import {
  activeFeatures,
  checkFeatureWorkload,
  checkFeaturesBeforePolicies,
  configureFeatures,
  reservedBytes,
  type ConfiguredFeature,
} from "./featureWiring.js";
import { earlyFeatureContext, featureContext } from "./featureContext.js";
import { controlPlaneOf } from "../features/gateway/access.js";
import { saturationOf } from "../features/saturation/access.js";

export interface SimulationResult {
  options: Readonly<RunOptions>;
  config: Readonly<SimConfig>;
  metrics: SimulationMetrics;
  /** The results-file object (cluster block plus per-request records). */
  resultsObject(): MetricsBlock & { requests?: RequestRecord[] };
  run: ClusterRun;
  /** The detectors' labels and trace (--detectors); null when off. */
  saturation: SaturationAnalysis | null;
}

export interface SimulateOptions {
  logger?: Logger;
  hooks?: RunHooks;
  /** Record time series (as --report does) even without a report path. */
  recordTimeSeries?: boolean;
  /** Replaces the global fetch for model-config downloads (tests). */
  fetchImpl?: FetchLike;
  /** Requests given by the caller (trace replay) instead of the workload options. */
  workload?: Pick<ResolvedWorkload, "source" | "horizon"> &
    Partial<Pick<ResolvedWorkload, "requestCap" | "sessions" | "sloTargets" | "deadlines" | "adapterRefs">>;
  /** Coefficients replacing the resolved ones (fitting); the backend must be fittable. */
  coefficients?: Coefficients;
  /** Called once every input is validated, just before the simulation starts, with the latency model it runs. */
  onStart?: (latency: ResolvedLatency) => void;
  /** Called once the inputs checked before plugins load are valid, just before they load. */
  beforePlugins?: (o: Readonly<RunOptions>) => void;
}

export { HORIZON_MAX_TEXT };

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

/** Ticks between time-series samples: --report-interval when a report or the caller wants them, else 0. */
function samplingInterval(o: Readonly<RunOptions>, so: SimulateOptions): number {
  if (o.reportInterval <= 0) throw new UserError(`--report-interval must be > 0, got ${o.reportInterval}`);
  return o.report !== "" || so.recordTimeSeries === true ? o.reportInterval : 0;
}

async function simulateIn(
  scope: { dispose: () => void },
  input: RunInput,
  so: SimulateOptions,
): Promise<SimulationResult> {
  const { o: parsed, explicit, log } = parseRunInput(input, so.logger);

  // Features that set GPU memory aside (LoRA's adapters) are configured before the KV capacity is
  // derived (docs/architecture.md "Configuration: parsed once, derived once").
  const early = await configureFeatures(parsed, earlyFeatureContext(parsed, explicit, log), true);
  // 3. Latency backend (docs/latency.md "Choosing a backend" and "Resolution"). It owns the
  // derived KV capacity and max-model-len (lat.totalKvBlocks, lat.maxModelLen).
  const lat = await resolveLatencyBackend(parsed, explicit, log, so.fetchImpl, reservedBytes(early));

  // 4. Workload.
  const wl = so.workload ?? resolveWorkload(parsed, explicit, log);
  checkFeatureWorkload(early, { adapterRefs: wl.adapterRefs ?? [] });

  // 5. Instance and batch limits.
  validateLimits(parsed, explicit, lat.totalKvBlocks);

  // 6. Plugins register extra policies before names are checked; then the policy bundle, whose
  // values make a new options object: everything below reads `o`.
  so.beforePlugins?.(parsed);
  await loadRunPlugins(parsed, log, scope);
  const { o, scorers: bundleScorers } = applyBundle(parsed, explicit, log);
  // PD's options are checked here, before the policies', as in BLIS; other features' when configured.
  checkFeaturesBeforePolicies(o, { explicit, log });

  const policies = validatePolicies(o, log, explicit);
  warnTierShedDefault(o, log);
  validatePipeline(o);
  const scorerSpecs = selectScorers(o, bundleScorers, log);
  // BLIS parses the weights only while printing, after the metrics (docs/behavior.md#c15); a
  // bad string fails either way, so it fails here before anything runs or is printed.
  if (o.fitnessWeights !== "") parseFitnessWeights(o.fitnessWeights);
  const horizon = wl.horizon;
  const latency = latencyFactory(o, lat, horizon, so.coefficients, log);
  const cluster = clusterSettings(o, scorerSpecs, policies);
  const context = featureContext(o, explicit, log, {
    lat,
    horizon,
    routing: cluster.routing,
    workload: { sloTargets: wl.sloTargets ?? {} },
    ...(so.fetchImpl !== undefined ? { fetchImpl: so.fetchImpl } : {}),
  });
  const late = await configureFeatures(o, context, false);
  checkFeatureWorkload(late, { adapterRefs: wl.adapterRefs ?? [] });
  const features = activeFeatures([...early, ...late] satisfies ConfiguredFeature[]);
  const deadlines = wl.deadlines === true;
  refuseIncompatibleFeatures({ deadlines }, features);
  const config = buildSimConfig(o, lat, { latency, horizon, cluster, policies }, { features });

  const sampling = samplingInterval(o, so);
  so.onStart?.(lat);
  const wallStart = process.hrtime.bigint();
  const run = runCluster(config, wl.source, log, {
    ...so.hooks,
    timeSeriesIntervalUs: sampling,
    requestCap: wl.requestCap ?? 0,
    sessions: wl.sessions ?? null,
  });
  const wall = Number(process.hrtime.bigint() - wallStart) / 1e9;
  noteCoarserSeries(run.timeSeries?.intervalUs ?? sampling, sampling, log);
  log.info(`Generated ${run.metrics.generated} requests via unified workload pipeline`);
  log.info(`Simulation wall-clock time: ${wall.toFixed(3)}s`);
  log.info("Simulation complete.");
  run.metrics.sustainedResponsesPerSec = sustainedWindow(run.ledger).perSec;

  return {
    options: o,
    config,
    metrics: run.metrics,
    run,
    saturation: saturationOf(run),
    resultsObject() {
      const reqs = requestRecords(run.ledger, controlPlaneOf(run)?.gateway?.recordDelaysMs);
      const base: MetricsBlock & { requests?: RequestRecord[] } = { ...run.metrics.cluster };
      if (reqs.length > 0) base.requests = reqs;
      return base;
    },
  };
}

/** One stderr line when the report's time series had to sample more coarsely than asked. */
function noteCoarserSeries(used: number, asked: number, log: Logger): void {
  if (used !== asked)
    log.warn(
      `--report-interval ${asked} µs would exceed the time series' memory cap; the report samples every ${used} µs instead`,
    );
}

/** Loads the run's plugins into `scope` (their budget first: the plugin host watches it). */
async function loadRunPlugins(o: Readonly<RunOptions>, log: Logger, scope: { dispose: () => void }): Promise<void> {
  const pluginOptions = parsePluginOptions(o.pluginOption);
  if (!(o.pluginTimeout > 0) || !Number.isFinite(o.pluginTimeout))
    throw new UserError(`--plugin-timeout must be a number of seconds > 0, got ${o.pluginTimeout}`);
  setBudget(o.pluginTimeout);
  if (o.plugin.length > 0) scope.dispose = await loadPlugins(o.plugin, log, pluginOptions);
  else if (o.pluginOption.length > 0) throw new UserError("--plugin-option needs --plugin (no plugin is loaded)");
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

export { flagName };

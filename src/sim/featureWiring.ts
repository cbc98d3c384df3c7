// Registered features in a run (src/features/, docs/extending.md "Adding a feature"): configured
// once from the options, started before the instances are built (an extension may give every
// instance a part), attached to the cluster, their results added to the metrics.

import { features, type ActiveFeature, type RegisteredFeature } from "../features/registry.js";
import type {
  CheckContext,
  FeatureContext,
  FeatureEnd,
  FeatureRun,
  FeatureStartContext,
  WorkloadFacts,
} from "../features/feature.js";
import type { ClusterSimulator } from "../cluster/cluster.js";
import type { ClusterExtension } from "../cluster/extension.js";
import type { RequestLedger } from "../core/ledger.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import "../features/builtins.js";

/** A registered feature after configuration: bound to its settings, or null when it is off. */
export interface ConfiguredFeature {
  readonly feature: RegisteredFeature;
  readonly active: ActiveFeature | null;
}

/**
 * Checks the options of the features whose checks come before the policies' (PD's, where BLIS
 * checks them), in registration order.
 */
export function checkFeaturesBeforePolicies(source: Readonly<Record<string, unknown>>, context: CheckContext): void {
  for (const feature of features.all()) if (feature.checkedBeforePolicies) feature.check(source, context);
}

/**
 * The features of one pass, each reading its options once here and checking them (unless checked
 * before the policies): the early pass (features that reserve GPU memory, before the latency
 * backend) or the rest.
 */
export async function configureFeatures(
  source: Readonly<Record<string, unknown>>,
  context: FeatureContext,
  early: boolean,
): Promise<ConfiguredFeature[]> {
  const out: ConfiguredFeature[] = [];
  for (const feature of features.all())
    if (feature.early === early)
      out.push({ feature, active: await feature.configure(source, context, feature.checkedBeforePolicies) });
  return out;
}

/** GPU memory the early features set aside on every instance, bytes. */
export function reservedBytes(configured: readonly ConfiguredFeature[]): number {
  return configured.reduce((sum, c) => sum + (c.active?.reservedBytes ?? 0), 0);
}

/** Every feature checks the workload, on or off. */
export function checkFeatureWorkload(configured: readonly ConfiguredFeature[], workload: WorkloadFacts): void {
  for (const { feature, active } of configured) feature.checkWorkload(active, workload);
}

/** The features that are on, in registration order (the order they start and print). */
export function activeFeatures(configured: readonly ConfiguredFeature[]): ActiveFeature[] {
  const order = features.all().map((f) => f.name);
  return configured
    .flatMap((c) => (c.active !== null ? [c.active] : []))
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
}

export interface StartedFeature {
  readonly feature: ActiveFeature;
  readonly run: FeatureRun;
}

/** A run's features started for a fleet still being built (`context.instances` fills as it is). */
export function startFeatures(active: readonly ActiveFeature[], context: FeatureStartContext): StartedFeature[] {
  return active.map((feature) => ({ feature, run: feature.start(context) }));
}

/** The most instances a run holds: the startup ones and what its features may add. */
export function instanceCapacity(startup: number, active: readonly ActiveFeature[]): number {
  return active.reduce((n, f) => n + f.extraInstances, startup);
}

/** The parts of a run one feature gives for all (the first started feature that gives one). */
type FeaturePart =
  | "fleet"
  | "queue"
  | "kvStore"
  | "instanceRole"
  | "cacheSignalDelay"
  | "wireLeave"
  | "projectUsers"
  | "pendingInFlight";

/**
 * The part one feature gives the whole run: the fleet the time series samples, the gateway queue,
 * the instances' KV store, PD's instance roles, cache-signal delay, completion hooks, user
 * projection and pending picks. The first started feature that gives it; undefined when none does.
 */
export function featurePart<K extends FeaturePart>(
  started: readonly StartedFeature[],
  part: K,
): FeatureRun[K] | undefined {
  return started.find(({ run }) => run[part] !== undefined)?.run[part];
}

/** The started features' stdout blocks, in start order. */
export function featureStdout(started: readonly StartedFeature[], ended: FeatureEnd): string {
  return started.map(({ run }) => run.stdout?.(ended) ?? "").join("");
}

/** The started features' cluster extensions. */
export function featureExtensions(started: readonly StartedFeature[]): ClusterExtension[] {
  return started.flatMap(({ run }) => (run.extension !== null ? [run.extension] : []));
}

/** Attaches the started features' extensions to the cluster. */
export function attachFeatures(started: readonly StartedFeature[], cluster: ClusterSimulator): void {
  for (const e of featureExtensions(started)) cluster.attach(e);
}

/** What the run ended with, as features see it. */
function featureEnd(metrics: SimulationMetrics, users: RequestLedger): FeatureEnd {
  return { users, cluster: metrics.cluster, end: metrics.fitnessInputs.simEnded };
}

/** Each started feature's additions outside the cluster block's keys, in start order (before any results). */
export function addFeatureMetrics(
  metrics: SimulationMetrics,
  started: readonly StartedFeature[],
  users: RequestLedger,
): void {
  for (const { run } of started) run.addMetrics?.(metrics, featureEnd(metrics, users));
}

/** Each started feature's last word on the metrics, in start order, after every feature's results. */
export function finishFeatures(
  metrics: SimulationMetrics,
  started: readonly StartedFeature[],
  users: RequestLedger,
): void {
  for (const { run } of started) run.finish?.(metrics, featureEnd(metrics, users));
}

/**
 * Each started feature's results in start order: under its metrics key in the cluster block, or
 * under its name in the block's `features`.
 */
export function addFeatureResults(
  metrics: SimulationMetrics,
  started: readonly StartedFeature[],
  users: RequestLedger,
): void {
  const grouped: Record<string, unknown> = {};
  for (const { feature, run } of started) {
    const results = run.results?.(featureEnd(metrics, users));
    if (results === undefined) continue;
    if (feature.metricsKey !== undefined) Object.assign(metrics.cluster, { [feature.metricsKey]: results });
    else grouped[feature.name] = results;
  }
  if (Object.keys(grouped).length > 0) metrics.cluster.features = grouped;
}

// Registered features in a run (src/features/, docs/extending.md "Adding a feature"): configured
// once from the options, started before the instances are built (an extension may give every
// instance a part), attached to the cluster, their results added to the metrics.

import { features, type ActiveFeature } from "../features/registry.js";
import type { FeatureContext, FeatureRun } from "../features/feature.js";
import type { ClusterSimulator } from "../cluster/cluster.js";
import type { ClusterExtension } from "../cluster/extension.js";
import type { Instance } from "../instance/instance.js";
import type { RequestLedger } from "../core/ledger.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import type { Logger } from "../util/log.js";
import "../features/builtins.js";

/** The features that are on in this run, each bound to its typed settings (options read once here). */
export async function configureFeatures(
  source: Readonly<Record<string, unknown>>,
  context: FeatureContext,
): Promise<ActiveFeature[]> {
  const active: ActiveFeature[] = [];
  for (const f of features.all()) {
    const a = await f.configure(source, context);
    if (a !== null) active.push(a);
  }
  return active;
}

export interface StartedFeature {
  readonly feature: ActiveFeature;
  readonly run: FeatureRun;
}

/** A run's features started for a fleet still being built (`instances` fills as it is). */
export function startFeatures(
  active: readonly ActiveFeature[],
  instances: readonly Instance[],
  log: Logger,
): StartedFeature[] {
  return active.map((feature) => ({ feature, run: feature.start({ instances, log }) }));
}

/** The started features' cluster extensions. */
export function featureExtensions(started: readonly StartedFeature[]): ClusterExtension[] {
  return started.flatMap(({ run }) => (run.extension !== null ? [run.extension] : []));
}

/** Attaches the started features' extensions to the cluster. */
export function attachFeatures(started: readonly StartedFeature[], cluster: ClusterSimulator): void {
  for (const e of featureExtensions(started)) cluster.attach(e);
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
    if (run.results === undefined) continue;
    const results = run.results({ users });
    if (feature.metricsKey !== undefined) Object.assign(metrics.cluster, { [feature.metricsKey]: results });
    else grouped[feature.name] = results;
  }
  if (Object.keys(grouped).length > 0) metrics.cluster.features = grouped;
}

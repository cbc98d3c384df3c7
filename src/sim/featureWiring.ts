// Registered features in a run (src/features/, docs/extending.md "Adding a feature"): configured
// once from the options, started with the cluster, their results added to the metrics.

import { features, type ActiveFeature } from "../features/registry.js";
import type { Deployment, FeatureRun } from "../features/feature.js";
import type { ClusterSimulator } from "../cluster/cluster.js";
import type { Instance } from "../instance/instance.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import type { Logger } from "../util/log.js";
import "../features/builtins.js";

/** The features that are on in this run, each bound to its typed settings (options read once here). */
export function configureFeatures(
  source: Readonly<Record<string, unknown>>,
  explicit: ReadonlySet<string>,
  deployment: Deployment,
  log: Logger,
): ActiveFeature[] {
  const active: ActiveFeature[] = [];
  for (const f of features.all()) {
    const a = f.configure(source, { explicit, log, deployment });
    if (a !== null) active.push(a);
  }
  return active;
}

/** A run's started features, their extensions attached to the cluster. */
export function startFeatures(
  active: readonly ActiveFeature[],
  cluster: ClusterSimulator,
  instances: readonly Instance[],
  log: Logger,
): { name: string; run: FeatureRun }[] {
  return active.map((a) => {
    const run = a.start({ instances, log });
    if (run.extension !== null) cluster.attach(run.extension);
    return { name: a.name, run };
  });
}

/** Each started feature's results under its name in the cluster block's `features`, in start order. */
export function addFeatureResults(
  metrics: SimulationMetrics,
  started: readonly { name: string; run: FeatureRun }[],
): void {
  const out: Record<string, unknown> = {};
  for (const { name, run } of started) if (run.results !== undefined) out[name] = run.results();
  if (Object.keys(out).length > 0) metrics.cluster.features = out;
}

// What the policy stage offers features (src/features/feature.ts PolicyServices): policies bound to
// their parameters in the run options, and routers over the run's instances. They read the run
// options here, so a feature sees only what it asks for.

import type { RunOptions } from "../config/runOptions.js";
import { routingPolicies, type RoutingPolicy } from "../cluster/routing/routing.js";
import { chooseScorers, type ScorerSpec } from "../cluster/scorers/scorer.js";
import type { RoutingContext, ScorerChoice } from "../cluster/routing/context.js";
import type { PolicyServices } from "../features/feature.js";
import type { RoutingSettings } from "./simConfig.js";
import { sloParams } from "./buildConfig.js";

export function policyServices(o: Readonly<RunOptions>, routing: RoutingSettings): PolicyServices {
  return {
    bind: (registry, name) => registry.bind(name, o),
    routingPolicy: (scorers) =>
      routerFactory(o, routing, scorers, {
        numInstances: o.numInstances,
        blockSize: o.blockSizeInTokens,
        slo: sloParams(o),
      }),
    cacheSignalDelay: o.cacheSignalDelay,
  };
}

/**
 * A router over a cluster's instances: weighted over `specs` when given, else of the main routing
 * policy's kind with its scorers; policy and scorer parameters from `source` (the run options).
 */
export function routerFactory(
  source: Readonly<Record<string, unknown>>,
  routing: RoutingSettings,
  specs: readonly ScorerSpec[] | null,
  cluster: Pick<RoutingContext, "numInstances" | "blockSize" | "slo">,
): () => RoutingPolicy {
  const build = routingPolicies.bind(specs === null ? routing.policy : "weighted", source);
  const scorers: readonly ScorerChoice[] = specs === null ? routing.scorers : chooseScorers(specs, source);
  const context: RoutingContext = { ...cluster, scorers, sloCacheWeights: routing.sloCacheWeights };
  return () => build(context);
}

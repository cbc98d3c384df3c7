// Registers the built-in admission policies, routing policies and scorers: one descriptor each.
// Policies with parameters export their descriptor from their own file; the rest take none.
import { factoryPolicy, type ParamsOf } from "../util/policyRegistry.js";
import { admissionPolicies } from "./admission/admission.js";
import { alwaysAdmit, rejectAll } from "./admission/alwaysAdmit.js";
import { tokenBucket } from "./admission/tokenBucket.js";
import { sloGated } from "./admission/sloGated.js";
import { routingPolicies } from "./routing/routing.js";
import { RoundRobinRouting } from "./routing/roundRobin.js";
import { AlwaysBusiestRouting, leastLoaded } from "./routing/loadBased.js";
import { weighted } from "./routing/weighted.js";
import { scorers } from "./scorers/scorer.js";
import { PrefixAffinityScorer } from "./scorers/prefixAffinity.js";
import { KvUtilizationScorer, LoadBalanceScorer, queueDepth } from "./scorers/loadScorers.js";
import { KvPressureScorer } from "./scorers/kvPressure.js";
import { SloPriorityScorer } from "./scorers/sloPriority.js";
import { precisePrefixCache } from "./scorers/precisePrefixCache.js";
import { noHitLru } from "./scorers/noHitLru.js";
import { activeRequests } from "./scorers/activeRequests.js";
import { runningRequests } from "./scorers/runningRequests.js";
import { loadAware } from "./scorers/loadAware.js";
import { vllmDp } from "./scorers/vllmDp.js";
import { loraAffinity } from "./scorers/loraAffinity.js";

/**
 * The parameters of the built-in admission policies, routing policies and scorers that have any
 * (least-loaded shares weighted's tie-break, no-hit-lru the precise cache's signal delay).
 */
export type ClusterPolicyParams = ParamsOf<typeof tokenBucket> &
  ParamsOf<typeof sloGated> &
  ParamsOf<typeof weighted> &
  ParamsOf<typeof queueDepth> &
  ParamsOf<typeof precisePrefixCache>;

// The registration order is the order of the --help lists (the gateway's admission policies follow:
// src/gateway/builtins.ts).
admissionPolicies.register(alwaysAdmit);
admissionPolicies.register(tokenBucket);
admissionPolicies.register(rejectAll);
admissionPolicies.register(sloGated);

routingPolicies.register(factoryPolicy("round-robin", () => new RoundRobinRouting(), "instances in turn"));
routingPolicies.register(leastLoaded);
routingPolicies.register(factoryPolicy("always-busiest", () => new AlwaysBusiestRouting(), "highest effective load"));
routingPolicies.register(weighted);

// Seed BLIS's four, today's BLIS's six, then this simulator's extensions.
scorers.register(
  factoryPolicy("prefix-affinity", (c) => new PrefixAffinityScorer(c.numInstances, c.blockSize), "cached prefix"),
);
scorers.register(queueDepth);
scorers.register(factoryPolicy("kv-utilization", () => new KvUtilizationScorer(), "free KV cache"));
scorers.register(factoryPolicy("load-balance", () => new LoadBalanceScorer(), "low load"));
scorers.register(precisePrefixCache);
scorers.register(noHitLru);
scorers.register(activeRequests);
scorers.register(runningRequests);
scorers.register(loadAware);
scorers.register(vllmDp);
scorers.register(loraAffinity);
scorers.register(factoryPolicy("kv-pressure", () => new KvPressureScorer("kv-pressure", false), "KV pressure"));
scorers.register(
  factoryPolicy("kv-pressure-slo", () => new KvPressureScorer("kv-pressure-slo", true), "KV pressure by SLO tier"),
);
scorers.register(
  factoryPolicy(
    "slo-priority",
    (c) => new SloPriorityScorer(c.numInstances, c.blockSize, c.sloCacheWeights),
    "prefix vs load by tier",
  ),
);

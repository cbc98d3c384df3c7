// Registers the built-in admission policies, routing policies and scorers: one descriptor each.
// Policies with parameters export their descriptor from their own file; the rest take none.
import { factoryPolicy } from "../util/policyRegistry.js";
import { admissionPolicies } from "./admission/admission.js";
import { alwaysAdmit, rejectAll } from "./admission/alwaysAdmit.js";
import { tokenBucket } from "./admission/tokenBucket.js";
import { sloGated } from "./admission/sloGated.js";
import { routingPolicies } from "./routing/routing.js";
import { RoundRobinRouting } from "./routing/roundRobin.js";
import { AlwaysBusiestRouting, LeastLoadedRouting } from "./routing/loadBased.js";
import { WeightedRouting } from "./routing/weighted.js";
import { scorers } from "./scorers/scorer.js";
import { PrefixAffinityScorer } from "./scorers/prefixAffinity.js";
import { KvUtilizationScorer, LoadBalanceScorer, QueueDepthScorer } from "./scorers/loadScorers.js";
import { KvPressureScorer } from "./scorers/kvPressure.js";
import { SloPriorityScorer } from "./scorers/sloPriority.js";

// The registration order is the order of the --help lists.
admissionPolicies.register(alwaysAdmit);
admissionPolicies.register(tokenBucket);
admissionPolicies.register(rejectAll);
admissionPolicies.register(sloGated);

routingPolicies.register(factoryPolicy("round-robin", () => new RoundRobinRouting(), "instances in turn"));
routingPolicies.register(factoryPolicy("least-loaded", () => new LeastLoadedRouting(), "lowest effective load"));
routingPolicies.register(factoryPolicy("always-busiest", () => new AlwaysBusiestRouting(), "highest effective load"));
routingPolicies.register(factoryPolicy("weighted", (c) => new WeightedRouting(c), "weighted sum of scorers"));

scorers.register(factoryPolicy("prefix-affinity", (c) => new PrefixAffinityScorer(c.numInstances, c.blockSize), "cached prefix"));
scorers.register(factoryPolicy("queue-depth", () => new QueueDepthScorer(), "short queues"));
scorers.register(factoryPolicy("kv-utilization", () => new KvUtilizationScorer(), "free KV cache"));
scorers.register(factoryPolicy("load-balance", () => new LoadBalanceScorer(), "low load"));
scorers.register(factoryPolicy("kv-pressure", () => new KvPressureScorer("kv-pressure", false), "KV pressure"));
scorers.register(factoryPolicy("kv-pressure-slo", () => new KvPressureScorer("kv-pressure-slo", true), "KV pressure by SLO tier"));
scorers.register(
  factoryPolicy("slo-priority", (c) => new SloPriorityScorer(c.numInstances, c.blockSize, c.sloCacheWeights), "prefix vs load by tier"),
);

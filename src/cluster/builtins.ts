// Registers the built-in admission policies, routing policies and scorers.
import { admissionPolicies } from "./admission/admission.js";
import { AlwaysAdmit, RejectAll } from "./admission/alwaysAdmit.js";
import { TokenBucketAdmission } from "./admission/tokenBucket.js";
import { SloGatedAdmission } from "./admission/sloGated.js";
import { routingPolicies } from "./routing/routing.js";
import { RoundRobinRouting } from "./routing/roundRobin.js";
import { AlwaysBusiestRouting, LeastLoadedRouting } from "./routing/loadBased.js";
import { WeightedRouting } from "./routing/weighted.js";
import { scorers } from "./scorers/scorer.js";
import { PrefixAffinityScorer } from "./scorers/prefixAffinity.js";
import { KvUtilizationScorer, LoadBalanceScorer, QueueDepthScorer } from "./scorers/loadScorers.js";
import { KvPressureScorer } from "./scorers/kvPressure.js";
import { SloPriorityScorer } from "./scorers/sloPriority.js";

admissionPolicies.register("always-admit", () => new AlwaysAdmit());
admissionPolicies.register("token-bucket", (c) => new TokenBucketAdmission(c.tokenBucketCapacity, c.tokenBucketRefillRate));
admissionPolicies.register("reject-all", () => new RejectAll());
admissionPolicies.register("slo-gated", (c) => new SloGatedAdmission(c.admissionLoadThreshold));

routingPolicies.register("round-robin", () => new RoundRobinRouting());
routingPolicies.register("least-loaded", () => new LeastLoadedRouting());
routingPolicies.register("always-busiest", () => new AlwaysBusiestRouting());
routingPolicies.register("weighted", (c) => new WeightedRouting(c));

scorers.register("prefix-affinity", (c) => new PrefixAffinityScorer(c.numInstances, c.blockSize));
scorers.register("queue-depth", () => new QueueDepthScorer());
scorers.register("kv-utilization", () => new KvUtilizationScorer());
scorers.register("load-balance", () => new LoadBalanceScorer());
scorers.register("kv-pressure", () => new KvPressureScorer("kv-pressure", false));
scorers.register("kv-pressure-slo", () => new KvPressureScorer("kv-pressure-slo", true));
scorers.register("slo-priority", (c) => new SloPriorityScorer(c.numInstances, c.blockSize, c.sloCacheWeights));

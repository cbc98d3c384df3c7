// Flags of the gateway queue, tenant budgets and SLO goodput (docs/gateway.md "Flags and bundle keys").
import type { ParamFlag } from "../../util/policyRegistry.js";
import type { GatewayParams } from "../../gateway/params.js";

const gw = (key: keyof GatewayParams, flag: string, type: ParamFlag["type"], help: string): ParamFlag => ({
  key,
  flag,
  type,
  group: "cluster",
  help,
});

export const GATEWAY_FLAGS: ParamFlag[] = [
  gw(
    "flowControl",
    "--flow-control",
    "bool",
    "gateway queue between admission and routing: priority bands, tenant flows, gated dispatch",
  ),
  gw(
    "saturationDetector",
    "--saturation-detector",
    "string",
    "flow control: dispatch gate signal: never, utilization, concurrency",
  ),
  gw(
    "queueDepthThreshold",
    "--queue-depth-threshold",
    "float",
    "utilization detector: queue depth counting as saturated",
  ),
  gw(
    "kvCacheUtilThreshold",
    "--kv-cache-util-threshold",
    "float",
    "utilization detector: KV utilization counting as saturated",
  ),
  gw(
    "maxConcurrency",
    "--max-concurrency",
    "int",
    "concurrency detector: in-flight requests per instance counting as saturated",
  ),
  gw(
    "dispatchOrder",
    "--dispatch-order",
    "string",
    "flow control: fifo, priority or slo-deadline (earliest enqueue + --slo-targets first)",
  ),
  gw(
    "sloTargets",
    "--slo-targets",
    "string",
    'slo-deadline dispatch targets "class=µs,..." (default: bundle admission.slo_targets)',
  ),
  gw(
    "maxGatewayQueueDepth",
    "--max-gateway-queue-depth",
    "int",
    "flow control: requests the queue holds; 0 = unlimited",
  ),
  gw("perBandCapacity", "--per-band-capacity", "int", "flow control: requests one priority band holds; 0 = unlimited"),
  gw(
    "usageLimitThreshold",
    "--usage-limit-threshold",
    "float",
    "flow control: saturation ceiling of the lowest band, in (0, 1]; bands between get ceilings from 1 down to it",
  ),
  gw(
    "fairnessPolicy",
    "--fairness-policy",
    "string",
    "flow control: order of tenant flows in a band: global-strict or round-robin",
  ),
  gw(
    "requestTtl",
    "--request-ttl",
    "int64",
    "flow control: ticks a request may wait in the queue before it expires; 0 = no limit",
  ),
  gw(
    "queueShedding",
    "--queue-shedding",
    "bool",
    "flow control: a full queue sheds its latest lowest-priority sheddable request for a higher-priority one",
  ),
  gw(
    "dispatchTickInterval",
    "--dispatch-tick-interval",
    "int64",
    "flow control: ticks between periodic dispatch attempts; 0 = 1000",
  ),
  gw(
    "inFlightEviction",
    "--in-flight-eviction",
    "bool",
    "flow control: when saturated, evict a routed sheddable request for a waiting non-sheddable one",
  ),
  gw("sloTtft", "--slo-ttft", "string", 'goodput TTFT targets "class=duration,..." (Go durations: 100ms, 1.5s)'),
  gw("sloItl", "--slo-itl", "string", 'goodput mean-ITL targets "class=duration,..."'),
  gw("sloE2e", "--slo-e2e", "string", 'goodput E2E targets "class=duration,..."'),
];

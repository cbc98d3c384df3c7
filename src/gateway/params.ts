// Run options of the gateway queue, tenant budgets and SLO goodput (docs/gateway.md). Every
// default leaves a run as it was without them.
import { z } from "zod";
import { anyNumber } from "../util/policyRegistry.js";

const IntMap = z.record(z.string(), z.number().int());
const NumberMap = z.record(z.string(), anyNumber);

export const gatewayParams = z.object({
  flowControl: z.boolean().default(false),
  saturationDetector: z.string().default("never"),
  queueDepthThreshold: anyNumber.default(5),
  kvCacheUtilThreshold: anyNumber.default(0.8),
  maxConcurrency: z.number().int().default(100),
  dispatchOrder: z.string().default("fifo"),
  sloTargets: z.string().default(""),
  maxGatewayQueueDepth: z.number().int().default(0),
  perBandCapacity: z.number().int().default(0),
  usageLimitThreshold: anyNumber.default(1.0),
  fairnessPolicy: z.string().default("global-strict"),
  requestTtl: z.number().int().default(0),
  queueShedding: z.boolean().default(false),
  dispatchTickInterval: z.number().int().default(1000),
  inFlightEviction: z.boolean().default(false),
  /** Goodput targets per class, `class=duration,...` (Go durations). */
  sloTtft: z.string().default(""),
  sloItl: z.string().default(""),
  sloE2e: z.string().default(""),
  /** Bundle `admission.slo_priorities`: class → priority overrides. */
  sloPriorities: IntMap.default({}),
  /** Bundle `admission.slo_targets`: class → µs, used when --slo-targets is absent. */
  sloTargetsMap: IntMap.default({}),
  /** Bundle `tenant_budgets`: tenant → fraction of the cluster's running slots. */
  tenantBudgets: NumberMap.default({}),
});

export type GatewayParams = z.infer<typeof gatewayParams>;

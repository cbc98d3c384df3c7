// The gateway as a feature of a run (docs/gateway.md): the flow-control queue, tenant budgets and
// goodput targets; its control plane wraps admission, its counters, tenants and goodput join the
// metrics, and its queue depth the time series.

import type { Feature } from "../feature.js";
import { gatewayParams, type GatewayParams } from "../../gateway/params.js";
import { GATEWAY_FLAGS } from "./flags.js";
import { gatewayPlan, type GatewayRun } from "./plan.js";
import { buildControlPlane, controlPlaneMetrics } from "./controlPlane.js";

export const gateway: Feature<GatewayParams, GatewayRun> = {
  name: "gateway",
  description: "gateway queue, tenant budgets and goodput targets between admission and routing",
  params: gatewayParams,
  flags: GATEWAY_FLAGS,
  bundleKeys: [
    { key: "sloPriorities", bundle: "admission.slo_priorities" },
    { key: "sloTargetsMap", bundle: "admission.slo_targets" },
    { key: "tenantBudgets", bundle: "tenant_budgets" },
  ],
  // Goodput counting alone constrains nothing; the queue and tenant budgets do.
  inert: ({ plan }) => plan.settings === null && plan.budgets === null,
  settings(p, { log, workload, deployment: d }) {
    const plan = gatewayPlan(p, log, workload.sloTargets, d.admissionPolicy);
    return plan === undefined ? null : { plan, runningSlots: d.numInstances * d.maxRunning };
  },
  start(run, { ledger, log }) {
    const cp = buildControlPlane(run, ledger, log);
    return {
      extension: cp,
      ...(cp.gateway !== null ? { queue: cp.gateway } : {}),
      addMetrics: (metrics, { users }) => controlPlaneMetrics(cp, run, metrics, users, log),
    };
  },
};

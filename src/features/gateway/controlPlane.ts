// The gateway feature's run: the control plane (tenant budgets, the gateway queue, goodput
// counting) and what it adds to the metrics (docs/gateway.md).
import { COMPLETED, type Request } from "../../core/request.js";
import { F_COMPLETED, F_DROPPED, type RequestLedger } from "../../core/ledger.js";
import { ControlPlane } from "../../gateway/controlPlane.js";
import { priorityMap } from "../../gateway/priorities.js";
import { TenantBudgets } from "../../gateway/tenantBudget.js";
import type { SimulationMetrics } from "../../metrics/collect.js";
import { computeGoodput } from "../../metrics/goodput.js";
import { tenantMetrics } from "../../metrics/tenants.js";
import type { Logger } from "../../util/log.js";
import type { GatewayRun } from "./plan.js";

/** The control plane of one run; `ledger` is the one instances write (a request's completion flags). */
export function buildControlPlane(run: GatewayRun, ledger: RequestLedger, log: Logger): ControlPlane {
  const { plan } = run;
  const alive = (req: Request): boolean =>
    req.instance >= 0 && req.state !== COMPLETED && ((ledger.flags[req.seq] ?? 0) & (F_COMPLETED | F_DROPPED)) === 0;
  let budgets: TenantBudgets | null = null;
  if (plan.budgets !== null) {
    if (run.runningSlots <= 0)
      log.warn("tenant_budgets: the cluster has no running slots (instances × --max-num-seqs = 0)");
    budgets = new TenantBudgets(
      plan.budgets,
      Math.max(1, run.runningSlots),
      plan.settings?.priority ?? priorityMap(plan.priorities),
      alive,
    );
  }
  return new ControlPlane(plan.settings, budgets, alive);
}

/** Adds the gateway counters, the per-tenant block and goodput to the run's metrics. */
export function controlPlaneMetrics(
  cp: ControlPlane,
  run: GatewayRun,
  metrics: SimulationMetrics,
  users: RequestLedger,
  log: Logger,
): void {
  metrics.gateway = cp.counts(log);
  metrics.tenants = tenantMetrics(users);
  const targets = run.plan.targets;
  if (targets === null) return;
  metrics.goodputConfigured = true;
  const g = computeGoodput(users, targets, cp.arrivals, metrics.fitnessInputs.simEnded);
  Object.assign(metrics.cluster, g);
}

// Builds the control plane of a run (tenant budgets, the gateway queue, goodput counting) on the
// cluster, and adds its results to the metrics (docs/gateway.md).
import type { ClusterSimulator } from "../cluster/cluster.js";
import { COMPLETED, type Request } from "../core/request.js";
import { F_COMPLETED, F_DROPPED, type RequestLedger } from "../core/ledger.js";
import { ControlPlane } from "../gateway/controlPlane.js";
import { priorityMap } from "../gateway/priorities.js";
import { TenantBudgets } from "../gateway/tenantBudget.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import { computeGoodput } from "../metrics/goodput.js";
import { tenantMetrics } from "../metrics/tenants.js";
import type { Logger } from "../util/log.js";
import type { SimConfig } from "./simConfig.js";

/** The control plane of a run that uses one, attached to the cluster; null otherwise. */
export function attachControlPlane(
  cfg: SimConfig,
  cluster: ClusterSimulator,
  ledger: RequestLedger,
  log: Logger,
): ControlPlane | null {
  const plan = cfg.gateway;
  if (plan === undefined) return null;
  const alive = (req: Request): boolean =>
    req.instance >= 0 && req.state !== COMPLETED && ((ledger.flags[req.seq] ?? 0) & (F_COMPLETED | F_DROPPED)) === 0;
  let budgets: TenantBudgets | null = null;
  if (plan.budgets !== null) {
    const slots = cfg.cluster.numInstances * cfg.engine.maxRunning;
    if (slots <= 0) log.warn("tenant_budgets: the cluster has no running slots (instances × --max-num-seqs = 0)");
    budgets = new TenantBudgets(
      plan.budgets,
      Math.max(1, slots),
      plan.settings?.priority ?? priorityMap(plan.priorities),
      alive,
    );
  }
  const cp = new ControlPlane(plan.settings, budgets, alive);
  cluster.attach(cp);
  return cp;
}

/** Adds the gateway counters, the per-tenant block and goodput to the run's metrics. */
export function controlPlaneMetrics(
  cp: ControlPlane,
  cfg: SimConfig,
  metrics: SimulationMetrics,
  ledger: RequestLedger,
  log: Logger,
): void {
  metrics.gateway = cp.counts(log);
  metrics.tenants = tenantMetrics(ledger);
  const targets = cfg.gateway?.targets ?? null;
  if (targets === null) return;
  metrics.goodputConfigured = true;
  const g = computeGoodput(ledger, targets, cp.arrivals, metrics.fitnessInputs.simEnded);
  Object.assign(metrics.cluster, g);
}

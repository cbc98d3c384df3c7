import type { Request } from "../core/request.js";
import { isSheddable, type PriorityMap } from "./priorities.js";

/**
 * Tenant fair-share budgets (docs/gateway.md "Tenant budgets"): a sheddable request of a tenant
 * with budget b is rejected while more than b × C of the tenant's requests are in flight, C being
 * the cluster's running slots. In flight means routed and not yet ended on the instance; several
 * admissions at one tick see the same count, so a tenant can overshoot (as in BLIS).
 */
export class TenantBudgets {
  /** Routed requests per tenant; ended ones are dropped when the tenant is next checked. */
  private readonly routed = new Map<string, Request[]>();

  constructor(
    private readonly budgets: ReadonlyMap<string, number>,
    private readonly capacity: number,
    private readonly priority: PriorityMap,
    private readonly alive: (req: Request) => boolean,
  ) {}

  rejects(req: Request): boolean {
    const b = this.budgets.get(req.tenantId);
    if (b === undefined || !isSheddable(this.priority(req.sloClass))) return false;
    return this.inFlight(req.tenantId) > b * this.capacity;
  }

  onRouted(req: Request): void {
    if (req.tenantId === "" || !this.budgets.has(req.tenantId)) return;
    let list = this.routed.get(req.tenantId);
    if (list === undefined) this.routed.set(req.tenantId, (list = []));
    list.push(req);
  }

  inFlight(tenant: string): number {
    const list = this.routed.get(tenant);
    if (list === undefined) return 0;
    const live = list.filter(this.alive);
    this.routed.set(tenant, live);
    return live.length;
  }
}

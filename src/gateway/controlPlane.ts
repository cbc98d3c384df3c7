import type { Request } from "../core/request.js";
import type { Logger } from "../util/log.js";
import { ShedTally, type GatewayCounts } from "./counters.js";
import { Gateway, type GatewayHost, type GatewaySettings } from "./gateway.js";
import { tierName } from "./priorities.js";
import type { TenantBudgets } from "./tenantBudget.js";

/** How admission went through the control plane. */
export interface ControlDecision {
  admitted: boolean;
  reason: string;
  /** The request is in the gateway queue or was dispatched from it (routing is the gateway's). */
  queued: boolean;
}

/**
 * What sits between arrival and routing beyond the admission policy: tenant budgets, the
 * flow-control gateway queue and the shed-by-tier tally (docs/gateway.md). The cluster holds one
 * only when a run uses these features, so other runs are unchanged.
 */
export class ControlPlane {
  readonly shed = new ShedTally();
  readonly gateway: Gateway | null;
  tenantBudgetRejected = 0;
  /** Arrivals by raw SLO class (goodput denominators). */
  readonly arrivals = new Map<string, number>();

  constructor(
    host: GatewayHost,
    settings: GatewaySettings | null,
    private readonly budgets: TenantBudgets | null,
  ) {
    this.gateway = settings === null ? null : new Gateway(host, settings, this.shed);
  }

  /** Budgets first, then the flow-control queue, else the admission policy (`inner`). */
  admit(req: Request, clock: number, inner: () => boolean, innerReason: () => string): ControlDecision {
    if (this.budgets !== null && this.budgets.rejects(req)) {
      this.tenantBudgetRejected++;
      return { admitted: false, reason: "tenant-budget-shed", queued: false };
    }
    if (this.gateway !== null) {
      const out = this.gateway.enqueue(req, clock);
      if (out === "rejected") req.dropPayload();
      return { admitted: true, reason: out === "rejected" ? "flow-control-queue-rejected" : "flow-control-enqueued", queued: true };
    }
    const ok = inner();
    return { admitted: ok, reason: innerReason(), queued: false };
  }

  onArrival(req: Request): void {
    this.arrivals.set(req.sloClass, (this.arrivals.get(req.sloClass) ?? 0) + 1);
  }

  /** An admission rejection (any policy) counts against its class's tier. */
  noteRejected(req: Request): void {
    this.shed.add(tierName(req.sloClass));
  }

  onEvent(rank: number, req: Request | null, clock: number): void {
    this.gateway!.onEvent(rank, req, clock);
  }

  onRouted(req: Request, instance: number, clock: number): void {
    this.budgets?.onRouted(req);
    this.gateway?.onRouted(req, instance, clock);
  }

  /** The end-of-run counters; warns when requests are left in the queue. */
  counts(log: Logger): GatewayCounts {
    const g = this.gateway;
    const depth = g?.queue.size ?? 0;
    if (depth > 0) log.warn(`${depth} requests remain in gateway queue at simulation end`);
    return {
      flowControl: g !== null,
      rejected: g?.rejected ?? 0,
      shed: g?.shedVictims ?? 0,
      expired: g?.expired ?? 0,
      evicted: g?.evicted ?? 0,
      depth,
      dispatched: g?.dispatched ?? 0,
      shedByTier: this.shed.sorted(),
      tenantBudgetRejected: this.tenantBudgetRejected,
    };
  }
}

import type { Request } from "../core/request.js";
import { decideAdmission, type AdmissionDecision, type AdmissionPolicy } from "../cluster/admission/admission.js";
import type { RouterState } from "../cluster/snapshot.js";
import type { Logger } from "../util/log.js";
import { ShedTally, type GatewayCounts } from "./counters.js";
import { Gateway, type GatewayHost, type GatewaySettings } from "./gateway.js";
import { tierName } from "./priorities.js";
import type { TenantBudgets } from "./tenantBudget.js";

/** The trace's admission reason of each way into the gateway queue. */
const ENQUEUE_REASONS = {
  enqueued: "flow-control-enqueued",
  "shed-victim": "flow-control-enqueued",
  rejected: "flow-control-queue-rejected",
  "timed-out": "flow-control-timed-out",
} as const;

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

  /** Budgets first, then the flow-control queue, else the admission policy over `state`. */
  admit(req: Request, clock: number, policy: AdmissionPolicy, state: RouterState): AdmissionDecision {
    if (this.budgets !== null && this.budgets.rejects(req)) {
      this.tenantBudgetRejected++;
      this.noteRejected(req);
      return { admitted: false, reason: "tenant-budget-shed", queued: false };
    }
    if (this.gateway !== null) {
      const out = this.gateway.enqueue(req, clock);
      if (out === "rejected" || out === "timed-out") req.dropPayload();
      return { admitted: true, reason: ENQUEUE_REASONS[out], queued: true };
    }
    const d = decideAdmission(policy, req, state);
    if (!d.admitted) this.noteRejected(req);
    return d;
  }

  onArrival(req: Request): void {
    this.arrivals.set(req.sloClass, (this.arrivals.get(req.sloClass) ?? 0) + 1);
  }

  /** An admission rejection (any policy) counts against its class's tier. */
  private noteRejected(req: Request): void {
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
      timedOut: g?.timedOut ?? 0,
      evicted: g?.evicted ?? 0,
      depth,
      dispatched: g?.dispatched ?? 0,
      shedByTier: this.shed.sorted(),
      tenantBudgetRejected: this.tenantBudgetRejected,
    };
  }
}

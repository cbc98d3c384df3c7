import type { Request } from "../core/request.js";
import { decideAdmission, type AdmissionDecision, type AdmissionPolicy } from "../cluster/admission/admission.js";
import type { RouterState } from "../cluster/snapshot.js";
import type { ClusterExtension, ClusterPort, ExtensionDescriptor } from "../cluster/extension.js";
import type { Logger } from "../util/log.js";
import { ShedTally, type GatewayCounts } from "./counters.js";
import { Gateway, RANK_EVICT, RANK_TICK, type GatewayHost, type GatewaySettings } from "./gateway.js";
import { tierName } from "./priorities.js";
import type { TenantBudgets } from "./tenantBudget.js";
import { InvariantError } from "../util/errors.js";

/** The trace's admission reason of each way into the gateway queue. */
const ENQUEUE_REASONS = {
  enqueued: "flow-control-enqueued",
  "shed-victim": "flow-control-enqueued",
  rejected: "flow-control-queue-rejected",
  "timed-out": "flow-control-timed-out",
} as const;

/**
 * The control plane as a cluster extension. As a feature (compatibility) it counts as active only
 * with the queue or tenant budgets: goodput counting alone runs with anything.
 */
export const CONTROL_PLANE_EXTENSION: ExtensionDescriptor = {
  name: "gateway",
  ranks: { first: RANK_EVICT, last: RANK_TICK },
  capabilities: ["admits", "evicts"],
};

/**
 * What sits between arrival and routing beyond the admission policy: tenant budgets, the
 * flow-control gateway queue and the shed-by-tier tally (docs/gateway.md). The cluster holds one
 * only when a run uses these features, so other runs are unchanged.
 */
export class ControlPlane implements ClusterExtension {
  readonly descriptor = CONTROL_PLANE_EXTENSION;
  readonly shed = new ShedTally();
  readonly gateway: Gateway | null;
  tenantBudgetRejected = 0;
  /** Arrivals by raw SLO class (goodput denominators). */
  readonly arrivals = new Map<string, number>();

  private port: ClusterPort | null = null;

  /** `alive`: whether a routed request is still on its instance (not completed, dropped or evicted). */
  constructor(
    settings: GatewaySettings | null,
    private readonly budgets: TenantBudgets | null,
    alive: (req: Request) => boolean,
  ) {
    this.gateway = settings === null ? null : new Gateway(this.hostWith(alive), settings, this.shed);
  }

  attach(port: ClusterPort): void {
    this.port = port;
  }

  /** The gateway's view of the cluster: the port, once attached. */
  private hostWith(alive: (req: Request) => boolean): GatewayHost {
    const port = (): ClusterPort => this.port ?? unattached();
    return {
      schedule: (t, rank, req) => port().schedule(t, rank, req),
      state: (clock) => port().routerState(clock),
      dispatch: (req, clock) => port().scheduleRouting(req, clock),
      evict: (req) => port().evictFromInstance(req),
      alive,
    };
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

  /** A gateway event (the ranks are the queue's: the cluster sends none without it). */
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

function unattached(): never {
  throw new InvariantError("the control plane is not attached to a cluster");
}

// The cluster loop with the operations the flow-control gateway queue needs (docs/gateway.md):
// its own events on the cluster queue and in-flight eviction.

import type { Request } from "../core/request.js";
import { ClusterSimulator, RANK_ROUTING } from "./cluster.js";

export class GatewayCluster extends ClusterSimulator {
  /** A gateway event (src/gateway/gateway.ts ranks), or with RANK_ROUTING a request's routing decision. */
  scheduleEvent(t: number, rank: number, req: Request | null): void {
    this.events.push(rank === RANK_ROUTING ? t + this.opts.routingLatency : t, rank, req);
  }

  /** Gateway in-flight eviction: the request leaves its instance without completion metrics. */
  evictFromInstance(req: Request): boolean {
    const i = req.instance;
    if (!(this.instances[i]?.evict(req) ?? false)) return false;
    this.inFlight[i] = Math.max(0, this.inFlight[i]! - 1);
    this.snapshots.inFlightChanged(i);
    this.snapshots.instanceChanged(i);
    this.rescheduled(i);
    return true;
  }
}

// The one warning at the end of a run that did not serve every request: why nothing completed, or
// how many requests were dropped as unservable and why (docs/behavior.md "Output, in order").

import type { ClusterRunStats } from "../cluster/cluster.js";
import type { Instance } from "../instance/instance.js";
import { describeUnservable } from "../instance/unservable.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import { HORIZON_MAX_TEXT } from "../config/runOptions.js";

export interface OutcomeContext {
  metrics: SimulationMetrics;
  stats: ClusterRunStats;
  instances: readonly Instance[];
  horizon: number;
  admissionPolicy: string;
}

/** The warning for this run, or null when every request that arrived completed. */
export function outcomeWarning(x: OutcomeContext): string | null {
  const c = x.metrics.cluster;
  const dropped = c.dropped_unservable;
  const drops = (): string => describeUnservable(x.instances.map((i) => i.unservable));
  if (c.completed_requests > 0) {
    if (dropped === 0) return null;
    return `${dropped} of ${x.stats.routed} requests were dropped as unservable: ${drops()}; --log debug lists each`;
  }
  const { rejected, arrived, generated } = x.stats;
  const bounded = x.horizon < 2 ** 63;
  const horizonText = `the horizon (${bounded ? x.horizon : HORIZON_MAX_TEXT} ticks)`;
  if (generated === 0) {
    return bounded
      ? `no requests completed: no request arrives before ${horizonText}`
      : "no requests completed: the workload has no requests";
  }
  if (rejected === arrived && arrived === generated) {
    return `all ${rejected} requests rejected by admission policy "${x.admissionPolicy}" — no requests completed`;
  }
  if (dropped === arrived && arrived === generated)
    return `no requests completed: all ${dropped} requests were dropped as unservable: ${drops()}`;
  const parts: string[] = [];
  if (rejected > 0) parts.push(`${rejected} rejected by admission policy "${x.admissionPolicy}"`);
  if (dropped > 0) parts.push(`${dropped} dropped as unservable (${drops()})`);
  if (c.still_queued > 0) parts.push(`${c.still_queued} still queued`);
  if (c.still_running > 0) parts.push(`${c.still_running} still running`);
  // Admitted but not yet enqueued at an instance (admission/routing latency, queueing delay).
  const inPipeline = arrived - rejected - c.injected_requests;
  if (inPipeline > 0) parts.push(`${inPipeline} not yet at an instance`);
  if (generated > arrived) parts.push(`${generated - arrived} not yet arrived`);
  const cut = c.still_queued + c.still_running + inPipeline + (generated - arrived) > 0;
  return cut
    ? `no requests completed by ${horizonText}: ${parts.join(", ")}; a longer --horizon lets them finish`
    : `no requests completed: ${parts.join(", ")}`;
}

// Prefill/decode disaggregation as a cluster extension (docs/prefill-decode.md): its event ranks,
// what it does to the loop and the features it cannot run with.

import type { ExtensionDescriptor } from "../cluster/extension.js";

/** Cluster-event ranks of the PD events (after admission 1 and routing 2 at equal times). */
export const RANK_PREFILL_ROUTING = 4;
export const RANK_TRANSFER_STARTED = 5;
export const RANK_TRANSFER_COMPLETED = 6;

export const PD_EXTENSION: ExtensionDescriptor = {
  name: "pd",
  ranks: { first: RANK_PREFILL_ROUTING, last: RANK_TRANSFER_COMPLETED },
  // A prefill's completion (an instance event) creates its transfer-start event.
  capabilities: ["routes", "instance-triggered"],
  incompatible: [
    // A deadline would have to cancel a user request split across two pools, its transfer and its
    // decode reservation; sub-requests carry no deadline, so the run would silently ignore them.
    {
      with: "deadlines",
      message:
        "--prefill-instances/--decode-instances cannot be combined with client deadlines (--timeout, or a workload-spec client's timeout key)",
    },
    // PD pools are fixed by index; instances the autoscaler adds or drains would have no pool.
    {
      with: "autoscale",
      message:
        "--prefill-instances/--decode-instances cannot be combined with node pools or autoscaling (--policy-config, --model-autoscaler-interval-us)",
    },
    // The gateway queue dispatches and evicts user requests and budgets count them in flight on one
    // instance, while PD routes and tracks each request as two sub-requests on two pools.
    {
      with: "gateway",
      message:
        "--prefill-instances/--decode-instances cannot be combined with --flow-control or tenant budgets (--policy-config tenant_budgets)",
    },
  ],
};

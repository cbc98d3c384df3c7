// The adapters a workload names (docs/lora.md "Workloads"), one reference per client, cohort or
// trace adapter, checked against the declared adapters before the run starts.

import type { WorkloadRequest } from "../core/workloadRequest.js";
import type { WorkloadSpec } from "../workload/spec/types.js";
import type { AdapterRef } from "./resolve.js";

/** `adapter:` keys of a spec's clients and cohorts (empty values name no adapter). */
export function specAdapterRefs(spec: WorkloadSpec): AdapterRef[] {
  const refs: AdapterRef[] = [];
  spec.clients.forEach((c, i) => {
    if ((c.adapter ?? "") !== "") refs.push({ adapter: c.adapter!, model: c.model, where: `client[${i}]` });
  });
  spec.cohorts.forEach((c, i) => {
    if ((c.adapter ?? "") !== "") refs.push({ adapter: c.adapter!, model: c.model, where: `cohort[${i}]` });
  });
  return refs;
}

/** The first request of each (adapter, model) pair of a replayed trace. */
export function requestAdapterRefs(requests: readonly WorkloadRequest[]): AdapterRef[] {
  const seen = new Set<string>();
  const refs: AdapterRef[] = [];
  for (const r of requests) {
    const a = r.adapter ?? "";
    if (a === "") continue;
    const key = `${a}\u0000${r.model}`;
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push({ adapter: a, model: r.model, where: `trace request ${r.id}` });
  }
  return refs;
}

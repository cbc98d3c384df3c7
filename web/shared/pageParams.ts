// URL parameters of the page itself (not `blis run` flags): they are kept in the URL with the
// flags but never passed to the simulator.

/** A pasted workload spec (saved as WORKLOAD_FILE, passed as --workload-spec). */
export const SPEC_PARAM = "workload-spec-yaml";
export const WORKLOAD_FILE = "workload.yaml";

export const PAGE_PARAMS: readonly string[] = [
  "run",
  SPEC_PARAM,
  "sweep-from",
  "sweep-to",
  "sweep-points",
  "sweep-requests",
  "sweep-slo-ttft-p99-ms",
  "sweep-slo-itl-p99-ms",
];

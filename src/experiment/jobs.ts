import os from "node:os";

/** Worker threads a sweep uses unless told otherwise: one per available CPU. */
export function defaultJobs(): number {
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

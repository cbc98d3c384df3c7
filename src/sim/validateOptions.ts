import type { RunOptions } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { checkCacheSignalDelay } from "../cluster/scorers/cacheSignals.js";

/**
 * The largest cluster `run` simulates. The event loop looks at every instance for each event, so
 * run time grows with instances × events; at this size a 100-request run takes seconds
 * (docs/behavior.md "Validation order and exit status").
 */
export const MAX_INSTANCES = 10000;

/** Stage: instance and batch limits, and an explicit horizon (step 5). */
export function validateLimits(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, totalKvBlocks: number): void {
  if (!(o.numInstances > 0)) throw new UserError(`--num-instances must be > 0, got ${o.numInstances}`);
  if (!(totalKvBlocks > 0)) throw new UserError(`--total-kv-blocks must be > 0, got ${totalKvBlocks}`);
  const positive: [keyof RunOptions, string][] = [
    ["blockSizeInTokens", "--block-size-in-tokens"],
    // The newer names were folded into the older ones: name the flag that was given.
    ["maxNumRunningReqs", explicit.has("maxNumSeqs") ? "--max-num-seqs" : "--max-num-running-reqs"],
    [
      "maxNumScheduledTokens",
      explicit.has("maxNumBatchedTokens") ? "--max-num-batched-tokens" : "--max-num-scheduled-tokens",
    ],
  ];
  for (const [k, flag] of positive) {
    if (!((o[k] as number) > 0)) throw new UserError(`${flag} must be > 0, got ${o[k] as number}`);
  }
  if (o.numInstances > MAX_INSTANCES) {
    throw new UserError(
      `--num-instances must be <= ${MAX_INSTANCES}, got ${o.numInstances} (every simulated event visits each instance, so larger clusters run for minutes)`,
    );
  }
  if (o.longPrefillTokenThreshold < 0) {
    throw new UserError(`--long-prefill-token-threshold must be >= 0, got ${o.longPrefillTokenThreshold}`);
  }
  // Only a horizon given on the command line: the default is unbounded, and a workload spec's
  // horizon of 0 means "not set". BLIS (2025) ran a non-positive horizon with an empty workload
  // and printed nothing; today's BLIS rejects it, as here.
  if (explicit.has("horizon") && !(o.horizon > 0)) throw new UserError(`--horizon must be > 0, got ${o.horizon}`);
}

/** Stage: snapshot refreshes and pipeline latencies (step 9; the CPU tier checks its own flags). */
export function validatePipeline(o: Readonly<RunOptions>): void {
  if (o.snapshotRefreshInterval < 0) {
    throw new UserError(`--snapshot-refresh-interval must be >= 0, got ${o.snapshotRefreshInterval}`);
  }
  // BLIS (2025) accepted negative latencies, which move a pipeline stage before its cause; today's
  // BLIS rejects them (docs/behavior.md#c18).
  if (o.admissionLatency < 0) throw new UserError(`--admission-latency must be >= 0, got ${o.admissionLatency}`);
  if (o.routingLatency < 0) throw new UserError(`--routing-latency must be >= 0, got ${o.routingLatency}`);
  checkCacheSignalDelay(o.cacheSignalDelay);
}

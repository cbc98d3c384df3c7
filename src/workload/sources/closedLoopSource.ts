// Closed-loop load (--concurrency N; docs/behavior.md "Closed-loop load"): distribution mode whose
// one client sends nothing on its own; N virtual users each keep one request outstanding.

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import { distributionParams, distributionSpec } from "./distributionSource.js";
import { isDistributionMode } from "./sharedParams.js";
import { replayTraceShape } from "./replayTraceSource.js";
import { workloadSpecShape } from "./workloadSpecSource.js";
import type { SourceContext, SpecOutput, WorkloadSource } from "./source.js";

export const closedLoopShape = {
  /** Virtual users of a closed loop (distribution mode); 0 = open loop at --rate. */
  concurrency: z.number().int().default(0),
  /** Think time of the virtual users, ms. */
  thinkTimeMs: z.number().int().default(0),
};

const params = z.object({
  ...distributionParams.shape,
  ...closedLoopShape,
  // The sources it cannot be combined with (its refusals name them).
  workloadSpec: workloadSpecShape.workloadSpec,
  workloadSpecObject: z.unknown().optional(),
  replayTrace: replayTraceShape.replayTrace,
});
type ClosedLoopParams = z.infer<typeof params>;

/** The value checks of --concurrency and --think-time-ms, in BLIS's order. */
function validate(p: ClosedLoopParams): void {
  if (p.concurrency < 0) throw new UserError(`--concurrency must be >= 0, got ${p.concurrency}`);
  if (p.thinkTimeMs < 0) throw new UserError(`--think-time-ms must be >= 0, got ${p.thinkTimeMs}`);
}

/** Virtual users take distribution mode's lengths: every other source, and --rate, is refused. */
function conflicts(p: ClosedLoopParams, context: SourceContext): void {
  if (p.concurrency === 0) return;
  if (context.explicit.has("rate"))
    throw new UserError("--concurrency and --rate are mutually exclusive; use one or the other");
  if (p.workloadSpecObject !== undefined || p.workloadSpec !== "") {
    throw new UserError(
      "--concurrency cannot be used with --workload-spec; define concurrency in the spec file using clients[].concurrency instead",
    );
  }
  if (p.replayTrace !== "")
    throw new UserError("--concurrency cannot be used with --replay-trace; the trace fixes every arrival");
  if (!isDistributionMode(p.workload)) {
    throw new UserError(
      `--concurrency cannot be used with --workload ${p.workload}; virtual users take the distribution-mode length flags`,
    );
  }
}

/** Only an explicit --num-requests caps the run. */
function resolve(p: ClosedLoopParams, context: SourceContext): SpecOutput {
  const spec = distributionSpec(p, context.seed);
  const client = spec.clients[0]!;
  client.concurrency = p.concurrency;
  client.think_time_us = p.thinkTimeMs * 1000;
  client.rate_fraction = 0;
  spec.aggregate_rate = 0;
  const maxRequests = context.explicit.has("numRequests") ? p.numRequests : 0;
  spec.num_requests = maxRequests;
  return { kind: "spec", spec, maxRequests, horizon: context.horizon, closedLoop: true };
}

export const closedLoopSource: WorkloadSource<ClosedLoopParams> = {
  name: "closed-loop",
  description: "distribution mode with virtual users, each keeping one request outstanding",
  params,
  flags: [
    {
      key: "concurrency",
      flag: "--concurrency",
      type: "int",
      group: "workload",
      help: "closed loop: this many virtual users, each sending its next request when its previous one ends (distribution mode; not with --rate; needs --num-requests or --horizon); 0 = open loop",
    },
    {
      key: "thinkTimeMs",
      flag: "--think-time-ms",
      type: "int",
      group: "workload",
      help: "closed loop: ms a virtual user waits between a response and its next request",
    },
  ],
  rank: 400,
  validate,
  conflicts,
  selects: (p) => p.concurrency > 0 && isDistributionMode(p.workload),
  resolve,
};

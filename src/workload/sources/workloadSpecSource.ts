// A workload-spec v2 (--workload-spec FILE, or a spec object from a library caller; Mooncake traces
// are spec entries too). Explicit --seed, --rate, --horizon and --num-requests win over its values
// (docs/behavior.md "Sources and precedence").

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import { decodeWorkloadSpec, loadWorkloadSpec } from "../spec/load.js";
import type { WorkloadSpec } from "../spec/types.js";
import { applySpecFlags } from "./specFlags.js";
import { prefixed, sharedWorkloadShape } from "./sharedParams.js";
import type { SourceContext, SpecOutput, WorkloadSource } from "./source.js";

export const workloadSpecShape = {
  workloadSpec: z.string().default(""),
};

const params = z.object({
  ...workloadSpecShape,
  // The run options' object (checked there) as given: a copy would lose the source positions a
  // spec read from a file carries (src/workload/spec/load.ts).
  workloadSpecObject: z.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null).optional(),
  rate: sharedWorkloadShape.rate,
  numRequests: sharedWorkloadShape.numRequests,
});
type SpecParams = z.infer<typeof params>;

function loadSpec(p: SpecParams, context: SourceContext): WorkloadSpec {
  try {
    return p.workloadSpecObject !== undefined
      ? decodeWorkloadSpec(p.workloadSpecObject, "parsing workload spec")
      : loadWorkloadSpec(p.workloadSpec, { logger: context.log });
  } catch (e) {
    return prefixed("Failed to load workload spec: ", e);
  }
}

/** The spec with the explicit flags applied, its horizon and request cap. */
function resolve(p: SpecParams, context: SourceContext): SpecOutput {
  const { explicit, log, seed } = context;
  const spec = loadSpec(p, context);
  applySpecFlags(spec, {
    ...(explicit.has("rate") ? { rate: p.rate } : {}),
    ...(explicit.has("numRequests") ? { numRequests: p.numRequests } : {}),
    ...(explicit.has("horizon") ? { horizon: context.horizon } : {}),
  });
  if (explicit.has("seed")) {
    log.info(`--seed ${seed} overrides the workload spec's seed ${spec.seed}`);
    spec.seed = seed;
  } else {
    log.info(`using the workload spec's seed ${spec.seed}`);
  }
  const horizon = spec.horizon > 0 && !explicit.has("horizon") ? spec.horizon : context.horizon;
  const maxRequests = explicit.has("numRequests") ? p.numRequests : spec.num_requests;
  if (maxRequests < 0 && explicit.has("numRequests") && p.workloadSpec !== "") {
    throw new UserError(`--num-requests must be 0 or more with --workload-spec, got ${maxRequests}`);
  }
  return { kind: "spec", spec, maxRequests, horizon, closedLoop: false };
}

export const workloadSpecSource: WorkloadSource<SpecParams> = {
  name: "workload-spec",
  description: "a workload-spec v2 YAML file (or spec object): clients, cohorts, Mooncake traces",
  params,
  flags: [
    {
      key: "workloadSpec",
      flag: "--workload-spec",
      type: "string",
      group: "workload",
      help: "workload-spec v2 YAML file; overrides --workload",
    },
  ],
  rank: 200,
  selects: (p) => p.workloadSpecObject !== undefined || p.workloadSpec !== "",
  resolve,
};

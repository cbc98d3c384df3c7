// CSV trace mode (--workload traces; docs/behavior.md "Sources and precedence"): a CSV trace
// converted to one constant-rate client with its average rate and lengths.

import { z } from "zod";
import { specFromCsvTraceMode } from "../trace/csvTrace.js";
import type { WorkloadSpec } from "../spec/types.js";
import { prefixed, sharedWorkloadShape } from "./sharedParams.js";
import type { SourceContext, SpecOutput, WorkloadSource } from "./source.js";

export const csvTraceShape = {
  workloadTracesFilepath: z.string().default(""),
};

const params = z.object({
  ...csvTraceShape,
  workload: sharedWorkloadShape.workload,
  numRequests: sharedWorkloadShape.numRequests,
});
type CsvTraceParams = z.infer<typeof params>;

function resolve(p: CsvTraceParams, context: SourceContext): SpecOutput {
  const { horizon } = context;
  let spec: WorkloadSpec;
  try {
    spec = specFromCsvTraceMode(
      p.workloadTracesFilepath,
      horizon === Infinity ? 0 : horizon,
      context.seed,
      context.log,
    );
  } catch (e) {
    if (p.workloadTracesFilepath === "") throw e;
    return prefixed("Failed to load CSV trace: ", e);
  }
  const maxRequests = context.explicit.has("numRequests") ? p.numRequests : spec.num_requests;
  return { kind: "spec", spec, maxRequests, horizon, closedLoop: false };
}

export const csvTraceSource: WorkloadSource<CsvTraceParams> = {
  name: "csv-trace",
  description: "a CSV trace converted to its average rate and lengths (--workload traces)",
  params,
  flags: [
    {
      key: "workloadTracesFilepath",
      flag: "--workload-traces-filepath",
      type: "string",
      group: "workload",
      help: "CSV trace for --workload traces (converted to average rate and lengths)",
    },
  ],
  rank: 300,
  selects: (p) => p.workload === "traces",
  resolve,
};

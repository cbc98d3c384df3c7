// Trace v2 replay (--replay-trace; docs/behavior.md "Sources and precedence"): the trace's requests
// one by one, in arrival order. It wins over every other workload flag.

import fs from "node:fs";
import { z } from "zod";
import { UserError } from "../../util/errors.js";
import type { WorkloadRequest } from "../../core/workloadRequest.js";
import { loadTraceV2 } from "../trace/traceV2.js";
import { traceReplaySource } from "../trace/replay.js";
import { prefixed, sharedWorkloadShape } from "./sharedParams.js";
import type { SourceContext, SourceOutput, WorkloadSource } from "./source.js";

export const replayTraceShape = {
  replayTrace: z.string().default(""),
  replayTraceData: z.string().default(""),
};

const params = z.object({
  ...replayTraceShape,
  numRequests: sharedWorkloadShape.numRequests,
  timeout: sharedWorkloadShape.timeout,
});
type ReplayParams = z.infer<typeof params>;

/** Deadlines of replayed trace requests: `seconds` after each arrival (none when negative). */
export function setDeadlines(requests: readonly WorkloadRequest[], seconds: number): void {
  if (!(seconds > 0)) return;
  for (const r of requests) r.deadline = r.arrival + seconds * 1e6;
}

/** The trace's requests in arrival order, capped by an explicit --num-requests and the horizon. */
function resolve(p: ReplayParams, context: SourceContext): SourceOutput {
  const horizon = context.horizon;
  const dataPath = p.replayTraceData !== "" ? p.replayTraceData : p.replayTrace.replace(/\.ya?ml$/i, "") + ".csv";
  if (!fs.existsSync(dataPath)) {
    throw new UserError(
      `--replay-trace-data: trace data file ${dataPath} not found (give it with --replay-trace-data)`,
    );
  }
  const trace = (() => {
    try {
      return loadTraceV2(p.replayTrace, dataPath);
    } catch (e) {
      return prefixed("--replay-trace: Failed to load trace: ", e);
    }
  })();
  const src = traceReplaySource(trace, context.seed);
  const all: WorkloadRequest[] = [];
  for (let r = src.next(); r !== null; r = src.next()) all.push(r);
  // Trace rows need not be sorted; the cluster consumes arrivals in time order (stable).
  all.sort((a, b) => a.arrival - b.arrival);
  const capped = context.explicit.has("numRequests") && p.numRequests > 0 ? all.slice(0, p.numRequests) : all;
  const kept = capped.filter((r) => r.arrival < horizon);
  setDeadlines(kept, p.timeout);
  const out = { kind: "requests", requests: kept, horizon, deadlines: p.timeout > 0 } as const;
  const targets = trace.header.goodput_slo_targets;
  return targets === undefined ? out : { ...out, sloTargets: targets };
}

export const replayTraceSource: WorkloadSource<ReplayParams> = {
  name: "replay-trace",
  description: "a trace v2 (header YAML + data CSV) replayed request by request",
  params,
  flags: [
    {
      key: "replayTrace",
      flag: "--replay-trace",
      type: "string",
      group: "workload",
      help: "replay a trace v2 (header YAML) request by request; overrides the other workload flags",
    },
    {
      key: "replayTraceData",
      flag: "--replay-trace-data",
      type: "string",
      group: "workload",
      help: "data CSV of the --replay-trace (default: the header path with .csv)",
    },
  ],
  rank: 100,
  selects: (p) => p.replayTrace !== "",
  resolve,
};

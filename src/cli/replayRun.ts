// The `blis replay` action (docs/calibration.md "Replay"): loaded on demand.

import { replay, type ReplayResult } from "../calibration/replay.js";
import { goJson } from "../util/goFormat.js";
import { renderStdout } from "../sim/renderStdout.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { UserError } from "../util/errors.js";
import { exportTraceV2, loadTraceV2, newTraceHeader, emptyTraceRecord, type TraceRecord } from "../workload/index.js";
import type { RunInput } from "../config/runOptions.js";
import type { CliIo } from "./io.js";
import { checkOutputFiles, checkOutputPath, writeOutput } from "./outputPaths.js";
import { checkInputPath, checkRunInputs } from "./inputPaths.js";
import { DATA_FILE_LIMIT, errnoReason, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { loggerFor } from "./logger.js";
import { checkSaturationReport, writeSaturationReport } from "./runCommand.js";
import fs from "node:fs";
import path from "node:path";

export async function runReplayCli(opts: Record<string, unknown>, run: RunInput, io: CliIo): Promise<void> {
  const logger = loggerFor(run.log, io);
  const header = String(opts["traceHeader"]);
  const data = String(opts["traceData"]);
  if (!fs.existsSync(header)) throw new UserError(`--trace-header file not found: ${header}`);
  if (!fs.existsSync(data)) throw new UserError(`--trace-data file not found: ${data}`);
  checkReplayOutputPaths(opts);
  checkInputPath("--trace-header", header, SPEC_FILE_LIMIT);
  checkInputPath("--trace-data", data, DATA_FILE_LIMIT);
  checkRunInputs(run);
  checkSaturationReport(run);
  if (run.report !== undefined && run.report !== "") {
    const { reportDataPath } = await import("../report/runReport.js");
    checkOutputFiles("--report", [run.report, reportDataPath(run.report)]);
  }
  if (run.model === undefined || run.model === "") throw new UserError("--model is required");

  const trace = loadTraceV2(header, data);
  const res = await replay(trace, {
    run,
    skipWarmup: opts["skipWarmup"] === true,
    skipFirstSeconds: (opts["skipFirstSeconds"] as number | undefined) ?? 0,
    sessionMode: opts["sessionMode"] === "closed-loop" ? "closed-loop" : "fixed",
    ...(opts["thinkTimeDist"] !== undefined ? { thinkDist: String(opts["thinkTimeDist"]) } : {}),
    logger,
  });
  const out = renderStdout(res.sim);
  io.stdout(out.head);
  writeReplayOutputs(opts, res, logger);
  writeSaturationReport(res.sim);
  if (out.fitnessError !== null) throw out.fitnessError;
  io.stdout(out.tail);
  if (res.sim.options.report !== "") {
    const { writeRunReport } = await import("../report/runReport.js");
    const written = writeRunReport(res.sim.options.report, res.sim);
    logger.info(`Report written to: ${written.html} (data: ${written.data})`);
  }
}

/** Checks every output file of a replay before it runs (a bad path fails fast, not after the simulation). */
function checkReplayOutputPaths(opts: Record<string, unknown>): void {
  const prefix = opts["traceOutput"] === undefined ? undefined : String(opts["traceOutput"]);
  // DIR/ (or DIR/.) as the prefix would write the hidden files DIR/.yaml and DIR/.csv.
  if (prefix !== undefined && (/[\\/]$/.test(prefix) || [".", "..", ""].includes(path.basename(prefix)))) {
    throw new UserError(
      `--trace-output ${prefix}: names a directory; give a file prefix (DIR/trace writes DIR/trace.yaml and DIR/trace.csv)`,
    );
  }
  const outputs: [string, string | undefined][] = [
    ["--results-path", opts["resultsPath"] as string | undefined],
    ["--metrics-path", opts["metricsPath"] as string | undefined],
    ["--trace-output", opts["traceOutput"] === undefined ? undefined : `${String(opts["traceOutput"])}.yaml`],
  ];
  for (const [flag, p] of outputs) if (p !== undefined) checkOutputPath(flag, p);
  if (opts["traceOutput"] !== undefined) checkOutputPath("--trace-output", `${String(opts["traceOutput"])}.csv`);
}

/** Writes the per-request results, the cluster metrics and the replayed trace, each when its flag is given. */
function writeReplayOutputs(
  opts: Record<string, unknown>,
  res: ReplayResult,
  logger: ReturnType<typeof loggerFor>,
): void {
  const resultsPath = opts["resultsPath"] as string | undefined;
  if (resultsPath !== undefined) {
    writeOutput("--results-path", resultsPath, goJson(res.requests) + "\n", writeFileAtomic);
    logger.info(`Per-request results written to: ${resultsPath}`);
  }
  const metricsPath = opts["metricsPath"] as string | undefined;
  if (metricsPath !== undefined) {
    const m = { ...res.sim.metrics.cluster, cache_hit_rate: res.sim.metrics.kv.cacheHitRate };
    writeOutput("--metrics-path", metricsPath, goJson(m) + "\n", writeFileAtomic);
  }
  const traceOutput = opts["traceOutput"] as string | undefined;
  if (traceOutput !== undefined) {
    try {
      exportTraceV2(replayedTrace(res), `${traceOutput}.yaml`, `${traceOutput}.csv`);
    } catch (e) {
      throw new UserError(`--trace-output: cannot write ${traceOutput}.yaml/.csv: ${errnoReason(e)}`);
    }
  }
}

/** The simulated timeline of every replayed row as a trace (mode replayed). */
function replayedTrace(res: ReplayResult): Parameters<typeof exportTraceV2>[0] {
  const l = res.sim.run.ledger;
  const postDecode = res.sim.config.latency().postDecodeOverhead();
  const records: TraceRecord[] = res.rows.map((row, k) => {
    const r: TraceRecord = { ...emptyTraceRecord(), ...row, x_request_id: "" };
    const i = res.seqOfRow[k]!;
    if (i < 0) {
      r.status = "incomplete";
      r.send_time_us = r.first_chunk_time_us = r.last_chunk_time_us = 0;
      return r;
    }
    const arrival = l.arrival[i]!;
    r.arrival_time_us = arrival;
    r.send_time_us = arrival;
    r.num_chunks = 0;
    r.error_message = "";
    r.finish_reason = "";
    const done = (l.flags[i]! & 2) !== 0;
    r.status = done ? "ok" : "incomplete";
    r.first_chunk_time_us = l.ttft[i]! >= 0 ? arrival + l.ttft[i]! : 0;
    r.last_chunk_time_us = done ? arrival + l.e2e[i]! - (row.output_tokens > 0 ? postDecode : 0) : 0;
    return r;
  });
  const header = newTraceHeader("replayed");
  return { header, layout: "v3", optionalColumns: [], records };
}

// `blis calibrate`: compare a trace's measured latencies with the simulated results of its
// replay (docs/calibration.md "Calibrate"). Reports only; adjusts nothing.

import { Option, type Command } from "commander";
import { flagParser } from "../config/parseFlagValue.js";
import type { CliIo } from "./io.js";
import { UserError } from "../util/errors.js";
import { Logger, parseLogLevel } from "../util/log.js";
import { DATA_FILE_LIMIT, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { checkInputPath } from "./inputPaths.js";
import { checkOutputPath } from "./outputPaths.js";

interface CalibrateFlags {
  traceHeader?: string;
  traceData?: string;
  simResults?: string;
  report?: string;
  json?: boolean;
  warmupRequests: number;
  networkRttUs: number;
  networkBandwidthMbps: number;
  itlData?: string;
  ttftMapeThreshold: number;
  simMetrics?: string;
  hitRateTolerancePp: number;
  sloTtft?: string;
  sloItl?: string;
  sloE2e?: string;
  log: string;
}

export function registerCalibrateCommand(program: Command, io: CliIo): void {
  const int = (flag: string) => flagParser("int64", flag) as (text: string) => number;
  const float = (flag: string) => flagParser("float", flag) as (text: string) => number;
  program
    .command("calibrate")
    .description("compare a trace's measured latencies with the simulated results of its replay")
    .option("--trace-header <path>", "trace v2 header YAML (from blis observe; required)")
    .option("--trace-data <path>", "trace v2 data CSV (required)")
    .option("--sim-results <path>", "per-request results JSON of blis replay --results-path (required)")
    .option("--report <path>", "also write the report JSON here")
    .option("--json", "print the report JSON on stdout instead of the table")
    .addOption(
      new Option(
        "--warmup-requests <int>",
        "rows with a request_id below this are warm-up; -1 = the header's warm_up_requests",
      )
        .argParser(int("--warmup-requests"))
        .default(-1),
    )
    .addOption(
      new Option("--network-rtt-us <int>", "RTT added to simulated latencies, µs; -1 = header measured_rtt_ms · 1000")
        .argParser(int("--network-rtt-us"))
        .default(-1),
    )
    .addOption(
      new Option("--network-bandwidth-mbps <float>", "adds 32·tokens/Mbps µs of transfer time; <= 0 = none")
        .argParser(float("--network-bandwidth-mbps"))
        .default(0),
    )
    .option("--itl-data <path>", "per-chunk timestamps of blis observe --record-itl, for the ITL comparison")
    .addOption(
      new Option("--ttft-mape-threshold <float>", "TTFT MAPE (fraction) of the informational verdict")
        .argParser(float("--ttft-mape-threshold"))
        .default(0.15),
    )
    .option(
      "--sim-metrics <path>",
      "metrics JSON of blis replay --metrics-path (its cache_hit_rate), for the KV hit-rate comparison",
    )
    .addOption(
      new Option("--hit-rate-tolerance-pp <float>", "band of the hit-rate verdict, percentage points")
        .argParser(float("--hit-rate-tolerance-pp"))
        .default(5),
    )
    .option(
      "--slo-ttft <targets>",
      "goodput TTFT targets per SLO class, e.g. critical=100ms,standard=500ms (over the header's)",
    )
    .option("--slo-itl <targets>", "goodput mean-ITL targets per SLO class")
    .option("--slo-e2e <targets>", "goodput E2E targets per SLO class, e.g. critical=5s")
    .option("--log <level>", "stderr log level: trace, debug, info, warn, error, fatal, panic", "info")
    .addHelpText(
      "after",
      "\nTimes are in µs. The table goes to stdout (--json: the report JSON instead); breakdowns per SLO\n" +
        "class and model, and warnings, go to stderr.\n" +
        "Example:\n  blis calibrate --trace-header t.yaml --trace-data t.csv --sim-results results.json --report calibration.json",
    )
    .action(async (flags: CalibrateFlags) => {
      await calibrateCli(flags, io);
    });
}

async function calibrateCli(flags: CalibrateFlags, io: CliIo): Promise<void> {
  // Every flag is checked before any file is read.
  const required: [string, string | undefined][] = [
    ["--trace-header", flags.traceHeader],
    ["--trace-data", flags.traceData],
    ["--sim-results", flags.simResults],
  ];
  for (const [flag, v] of required) if (v === undefined || v === "") throw new UserError(`${flag} is required`);
  const level = parseLogLevel(flags.log);
  if (level === null) throw new UserError(`Invalid log level: ${flags.log}`);
  const logger = new Logger(level, io.stderrLine);
  checkInputPath("--trace-header", flags.traceHeader, SPEC_FILE_LIMIT);
  checkInputPath("--trace-data", flags.traceData, DATA_FILE_LIMIT);
  checkInputPath("--sim-results", flags.simResults, DATA_FILE_LIMIT);
  checkInputPath("--itl-data", flags.itlData, DATA_FILE_LIMIT);
  checkInputPath("--sim-metrics", flags.simMetrics, DATA_FILE_LIMIT);
  if (flags.report !== undefined && flags.report !== "") checkOutputPath("--report", flags.report);

  const { calibrateWithDetails, validateCalibrateOptions } = await import("../calibration/calibrate.js");
  const { parseSloFlag } = await import("../calibration/goodput.js");
  const opts = {
    warmupRequests: flags.warmupRequests,
    networkRttUs: flags.networkRttUs,
    networkBandwidthMbps: flags.networkBandwidthMbps,
    ttftMapeThreshold: flags.ttftMapeThreshold,
    hitRateTolerancePp: flags.hitRateTolerancePp,
    sloTargets: {
      ttft: parseSloFlag("--slo-ttft", flags.sloTtft ?? ""),
      itl: parseSloFlag("--slo-itl", flags.sloItl ?? ""),
      e2e: parseSloFlag("--slo-e2e", flags.sloE2e ?? ""),
    },
    simCacheHitRate: undefined as number | undefined,
  };
  validateCalibrateOptions(opts);

  const { loadTraceV2 } = await import("../workload/trace/traceV2.js");
  const { loadSimResults, loadSimCacheHitRate } = await import("../calibration/simResults.js");
  const { loadItlCsv } = await import("../calibration/itlCsv.js");
  const trace = loadTraceV2(flags.traceHeader!, flags.traceData!);
  const sim = loadSimResults(flags.simResults!);
  const itl = flags.itlData !== undefined && flags.itlData !== "" ? loadItlCsv(flags.itlData) : undefined;
  if (flags.simMetrics !== undefined && flags.simMetrics !== "") {
    opts.simCacheHitRate = loadSimCacheHitRate(flags.simMetrics);
    if (opts.simCacheHitRate === undefined) logger.warn(`--sim-metrics ${flags.simMetrics} has no cache_hit_rate`);
  }

  const { report, details } = calibrateWithDetails(trace, sim, opts, itl);
  const { logCalibrationDetails, renderCalibrationTable } = await import("../calibration/calibrateTable.js");
  const text = JSON.stringify(report, null, 2) + "\n";
  if (flags.report !== undefined && flags.report !== "") {
    const { writeFileAtomic } = await import("../util/atomicWrite.js");
    try {
      writeFileAtomic(flags.report, text);
    } catch (e) {
      throw new UserError(`writing calibration report ${flags.report}: ${(e as Error).message.split("\n")[0]}`);
    }
    logger.info(`Calibration report written to ${flags.report}`);
  }
  io.stdout(flags.json === true ? text : renderCalibrationTable(report, details));
  logCalibrationDetails(details, logger);
}

// `blis observe` (docs/observe.md): replay a generated workload against a live OpenAI-compatible
// server and record a trace v2 (mode real) with the measured times.

import fs from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import { runFlags } from "../config/runFlags.js";
import type { AnyFlagDef } from "../config/flagDef.js";
import { saturationParams, type SaturationParams } from "../features/saturation/saturation.js";
import { parseParams } from "../util/policyRegistry.js";
import { flagParser } from "../config/parseFlagValue.js";
import type { CliIo } from "./io.js";
import { runOptionsSchema, type RunOptions } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { Logger, parseLogLevel } from "../util/log.js";
import { fileKind } from "../util/inputFile.js";
import { checkRunInputs } from "./inputPaths.js";
import { checkOutputDir, checkOutputPath, creationProblem, writeOutput } from "./outputPaths.js";
import { saturationPlan, type SaturationPlan } from "../saturation/config.js";
import { analyzeSaturation, saturationReportJson } from "../saturation/analyze.js";
import { observedRequests } from "../saturation/runSaturation.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import type * as ObserveLib from "../observe/index.js";
import type { ApiFormat, ObserveOptions, ObserveProgress, ObserveResult } from "../observe/index.js";
import type { RequestSource } from "../workload/index.js";

/** Workload flags shared with `blis run`, plus the preset file and the log level. */
// observe has its own --timeout (the HTTP request's), so the simulated client deadline is left out.
const SHARED_FLAGS: AnyFlagDef[] = runFlags().filter(
  (f) =>
    (f.group === "workload" && f.key !== "timeout") ||
    f.key === "defaultsFilepath" ||
    f.key === "log" ||
    f.key in saturationParams.shape,
);

const MAX_TIMEOUT_S = 86400;
const PROGRESS_INTERVAL_MS = 5000;

/** The observe library, imported when the command runs. */
type ObserveModule = typeof ObserveLib;

export interface ObserveCliOptions {
  server?: string;
  serverUrl?: string;
  model?: string;
  traceHeader?: string;
  traceData?: string;
  apiFormat: string;
  apiKey: string;
  serverType: string;
  maxConcurrency: number;
  warmupRequests: number;
  streaming: boolean;
  unconstrainedOutput?: boolean;
  timeout: number;
  rttMs: number;
  recordItl?: boolean;
  itlOutput?: string;
  prewarmDuration: string;
  progress: boolean;
  [key: string]: unknown;
}

function sharedOption(f: AnyFlagDef): Option {
  const value = f.type === "bool" ? " [bool]" : ` <${f.type === "floats" ? "list" : f.type}>`;
  const help = f.def !== "" ? `${f.help} (default ${f.def})` : f.help;
  const o = new Option(f.flag + value, help).argParser(flagParser(f.type, f.flag));
  if (f.type === "bool") o.preset("true");
  return o;
}

/** Seconds from "90", "1.5", "500ms", "30s", "2m", "1h" or combinations such as "1m30s". */
export function parseDurationMs(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(t); m !== null; m = re.exec(t)) {
    total += Number(m[1]) * unit[m[2]!]!;
    end = re.lastIndex;
  }
  if (t === "" || end !== t.length)
    throw new UserError(`${flag}: ${JSON.stringify(text)} is not a duration (e.g. 30s, 2m, 1m30s, or seconds)`);
  return total;
}

/** Fails unless `file` can be created or overwritten. */
function checkWritable(file: string, flag: string): void {
  const dir = path.dirname(path.resolve(file));
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    // A missing directory is created when the file is written, if it can be.
    checkOutputDir(flag, dir, file);
    return;
  }
  if (!st.isDirectory()) throw new UserError(`${flag}: ${dir} is not a directory`);
  try {
    fs.accessSync(fs.existsSync(file) ? file : dir, fs.constants.W_OK);
  } catch {
    throw new UserError(`${flag}: ${fs.existsSync(file) ? file : `directory ${dir}`} is not writable`);
  }
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new UserError(`${flag}: ${file} is a directory`);
  if (fs.existsSync(file) && !fs.statSync(file).isFile())
    throw new UserError(`${flag}: ${file} is not a regular file (${fileKind(fs.statSync(file))})`);
  const why = creationProblem(dir);
  if (why !== null) throw new UserError(`${flag}: cannot create files in ${dir}: ${why}`);
}

/** The requests of `src` with arrivals counted from the first one. */
function fromFirstArrival(src: RequestSource): RequestSource {
  let origin: number | null = null;
  return {
    get produced() {
      return src.produced;
    },
    next() {
      const r = src.next();
      if (r === null) return null;
      origin ??= r.arrival;
      // In place: a copy by spread would lose the request's token getter.
      r.arrival -= origin;
      return r;
    },
  };
}

function positiveInt(v: number, flag: string, min: number): void {
  if (!Number.isInteger(v) || v < min) throw new UserError(`${flag} must be an integer >= ${min}, got ${v}`);
}

/** The options without which nothing can be observed or written, present and non-empty. */
interface ObserveTarget {
  server: string;
  model: string;
  traceHeader: string;
  traceData: string;
}

/** The workload flags parsed as `blis run` parses them. */
interface ObserveWorkload {
  ro: RunOptions;
  /** The detectors' options (the run's saturation feature reads the same). */
  saturation: SaturationParams;
  /** Keys given on the command line. */
  explicit: Set<string>;
  /** A named preset (--workload NAME) rather than a spec, a trace or distribution flags. */
  preset: boolean;
}

/** The request options checked and converted. */
interface RequestSettings {
  apiFormat: ApiFormat;
  prewarmMs: number;
}

export async function observeCli(opts: ObserveCliOptions, io: CliIo): Promise<void> {
  // Every check runs before anything is sent.
  const target = requiredTarget(opts);
  // Loaded on demand so that other commands (and --help) start quickly.
  const lib = await import("../observe/index.js");
  lib.parseServerUrl(target.server);
  const log = observeLogger(opts, io);
  const settings = requestSettings(opts, lib);
  const workload = observeWorkload(opts);
  checkRunInputs(workload.ro);
  const saturation = saturationPlan(workload.saturation);
  if (saturation !== null && saturation.report !== "") checkOutputPath("--saturation-report", saturation.report);
  const itlPath =
    opts.itlOutput !== undefined && opts.itlOutput !== "" ? opts.itlOutput : lib.defaultItlPath(target.traceData);
  checkOutputFiles(target, opts, itlPath, log);

  const { resolveWorkload } = await import("../sim/resolveWorkload.js");
  const resolved = resolveWorkload(workload.ro, workload.explicit, log).source;
  // A replayed trace may carry absolute epoch arrivals (an observed one does): pace it from its
  // first arrival instead.
  const source = workload.ro.replayTrace !== "" ? fromFirstArrival(resolved) : resolved;
  const result = await cancelledOnSigint(io, (signal) =>
    lib.observe(source, observeOptions(target, opts, settings, signal, log, io)),
  );
  writeObservation(lib, result, { target, opts, workload, itlPath, io, saturation, log });
}

function requiredTarget(opts: ObserveCliOptions): ObserveTarget {
  const server = opts.server ?? opts.serverUrl;
  if (server === undefined || server === "")
    throw new UserError("--server is required (e.g. --server http://localhost:8000)");
  if (opts.model === undefined || opts.model === "")
    throw new UserError("--model is required (the model name the server serves)");
  if (opts.traceHeader === undefined || opts.traceHeader === "") throw new UserError("--trace-header is required");
  if (opts.traceData === undefined || opts.traceData === "") throw new UserError("--trace-data is required");
  return { server, model: opts.model, traceHeader: opts.traceHeader, traceData: opts.traceData };
}

function observeLogger(opts: ObserveCliOptions, io: CliIo): Logger {
  const level = parseLogLevel(typeof opts["log"] === "string" ? opts["log"] : "warn");
  if (level === null) throw new UserError(`Invalid log level: ${String(opts["log"])}`);
  return new Logger(level, io.stderrLine);
}

function requestSettings(opts: ObserveCliOptions, lib: ObserveModule): RequestSettings {
  const apiFormat = lib.API_FORMATS.find((f) => f === opts.apiFormat);
  if (apiFormat === undefined)
    throw new UserError(`--api-format must be completions or chat, got ${JSON.stringify(opts.apiFormat)}`);
  positiveInt(opts.maxConcurrency, "--max-concurrency", 1);
  positiveInt(opts.warmupRequests, "--warmup-requests", 0);
  if (!(opts.timeout > 0 && opts.timeout <= MAX_TIMEOUT_S))
    throw new UserError(`--timeout must be in (0, ${MAX_TIMEOUT_S}] seconds, got ${opts.timeout}`);
  if (!(Number.isFinite(opts.rttMs) && opts.rttMs >= 0))
    throw new UserError(`--rtt-ms must be a finite value >= 0, got ${opts.rttMs}`);
  return { apiFormat, prewarmMs: parseDurationMs(opts.prewarmDuration, "--prewarm-duration") };
}

function observeWorkload(opts: ObserveCliOptions): ObserveWorkload {
  const input: Record<string, unknown> = {};
  for (const f of SHARED_FLAGS)
    if (opts[f.key] !== undefined) input[f.key] = f.type === "bool" && opts[f.key] === "true" ? true : opts[f.key];
  const explicit = new Set(Object.keys(input));
  if (
    !explicit.has("rate") &&
    !explicit.has("workloadSpec") &&
    !explicit.has("replayTrace") &&
    !explicit.has("workload")
  ) {
    throw new UserError(
      "no workload: give --rate (with --num-requests or --horizon), --workload <preset> --rate R, --workload-spec FILE or --replay-trace FILE",
    );
  }
  const parsed = runOptionsSchema().safeParse(input);
  if (!parsed.success) throw new UserError(`invalid workload option: ${parsed.error.issues[0]!.message}`);
  const ro: RunOptions = parsed.data;
  const preset =
    ro.workloadSpec === "" && ro.replayTrace === "" && !["distribution", "traces", ""].includes(ro.workload);
  if (preset && !explicit.has("rate"))
    throw new UserError(`--workload ${ro.workload} needs --rate (requests per second)`);
  return { ro, saturation: parseParams(saturationParams, input), explicit, preset };
}

function checkOutputFiles(target: ObserveTarget, opts: ObserveCliOptions, itlPath: string, log: Logger): void {
  if (path.resolve(target.traceHeader) === path.resolve(target.traceData))
    throw new UserError("--trace-header and --trace-data must be different files");
  checkWritable(target.traceHeader, "--trace-header");
  checkWritable(target.traceData, "--trace-data");
  if (opts.recordItl === true) checkWritable(itlPath, opts.itlOutput ? "--itl-output" : "--record-itl");
  else if (opts.itlOutput !== undefined) log.warn("--itl-output has no effect without --record-itl");
}

/** Runs `observe` with a signal that Ctrl-C aborts, so that what was measured is still written. */
async function cancelledOnSigint<T>(io: CliIo, observe: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onSigint = (): void => {
    io.stderrLine("observe: interrupted; waiting for the requests in flight to be cancelled, then writing the trace");
    stop.abort();
  };
  process.once("SIGINT", onSigint);
  try {
    return await observe(stop.signal);
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}

function observeOptions(
  target: ObserveTarget,
  opts: ObserveCliOptions,
  settings: RequestSettings,
  signal: AbortSignal,
  log: Logger,
  io: CliIo,
): ObserveOptions {
  return {
    serverUrl: target.server,
    model: target.model,
    apiFormat: settings.apiFormat,
    apiKey: opts.apiKey,
    unconstrainedOutput: opts.unconstrainedOutput === true,
    timeoutMs: opts.timeout * 1000,
    streaming: opts.streaming,
    maxConcurrency: opts.maxConcurrency,
    warmupRequests: opts.warmupRequests,
    recordItl: opts.recordItl === true,
    prewarmMs: settings.prewarmMs,
    signal,
    logger: log,
    progressIntervalMs: PROGRESS_INTERVAL_MS,
    ...(opts.progress
      ? {
          onProgress: (p: ObserveProgress) =>
            io.stderrLine(
              `observe: ${p.dispatched} sent, ${p.completed} done (ok ${p.ok}, error ${p.errors}, timeout ${p.timeouts}), ${p.inFlight} in flight, ${p.elapsedS.toFixed(1)} s`,
            ),
        }
      : {}),
  };
}

/**
 * The seed that generated the workload, for the header; absent when it does not fit a safe
 * integer, or when a workload spec's own seed applied (the flag was not given).
 */
function workloadSeed(workload: ObserveWorkload): number | undefined {
  const ro = workload.ro;
  const seed =
    typeof ro.seed === "bigint"
      ? ro.seed >= BigInt(Number.MIN_SAFE_INTEGER) && ro.seed <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(ro.seed)
        : undefined
      : ro.seed;
  const specSeedUnknown = ro.workloadSpec !== "" && ro.replayTrace === "" && !workload.explicit.has("seed");
  return specSeedUnknown ? undefined : seed;
}

/** Writes the trace (and the ITL CSV), then reports where on stderr and the summary on stdout. */
function writeObservation(
  lib: ObserveModule,
  result: ObserveResult,
  ctx: {
    target: ObserveTarget;
    opts: ObserveCliOptions;
    workload: ObserveWorkload;
    itlPath: string;
    io: CliIo;
    saturation: SaturationPlan | null;
    log: Logger;
  },
): void {
  const { target, opts, workload, itlPath, io } = ctx;
  const ro = workload.ro;
  const seed = workloadSeed(workload);
  const trace = lib.buildObservedTrace(result, {
    model: target.model,
    serverType: opts.serverType,
    warmupRequests: opts.warmupRequests,
    rttMs: opts.rttMs,
    workloadSpec: ro.workloadSpec !== "" ? ro.workloadSpec : workload.preset ? `preset:${ro.workload}` : "",
    ...(seed !== undefined ? { workloadSeed: seed } : {}),
    createdAt: lib.rfc3339Utc(new Date()),
  });
  try {
    lib.writeObservedTrace(trace, target.traceHeader, target.traceData);
    if (opts.recordItl === true) lib.writeItlCsv(result.itl, itlPath);
  } catch (e) {
    throw new UserError(`writing the trace: ${(e as Error).message}`);
  }
  io.stderrLine(
    `observe: ${result.records.length} requests recorded (${result.dispatched - result.records.length} warm-up) in ` +
      `${target.traceHeader} and ${target.traceData}` +
      (opts.recordItl === true ? `; ${result.itl.length} chunk times in ${itlPath}` : "") +
      (result.interrupted ? " (interrupted)" : ""),
  );
  const summary = lib.summarizeObserved(result.records);
  if (result.records.length > 0 && summary.completed_requests === 0) {
    throw new UserError(
      `observe: none of the ${result.records.length} requests succeeded (${summary.failed_requests} failed, ${summary.timed_out_requests} timed out); ` +
        `${target.traceData} records why (status and error_message columns)`,
    );
  }
  if (ctx.saturation !== null) {
    const a = analyzeSaturation(observedRequests(result.records), ctx.saturation, (m) => ctx.log.warn(m));
    summary.saturation = a.final;
    if (ctx.saturation.report !== "")
      writeOutput("--saturation-report", ctx.saturation.report, saturationReportJson(a), writeFileAtomic);
  }
  io.stdout(lib.renderObservedMetrics(summary));
}

/** Adds `blis observe`. */
export function registerObserveCommand(program: Command, io: CliIo): void {
  const int = flagParser("int", "");
  const float = flagParser("float", "");
  const cmd = program
    .command("observe")
    .description(
      "replay a generated workload against a live OpenAI-compatible server and record a trace v2 of the measured times",
    )
    .option("--server <url>", "server base URL, e.g. http://localhost:8000 (required; /v1/completions is appended)")
    .addOption(new Option("--server-url <url>", "same as --server").hideHelp())
    .option("--model <name>", "model name sent in each request and written to the header (required)")
    .option("--trace-header <path>", "output trace header YAML (required)")
    .option("--trace-data <path>", "output trace data CSV (required)")
    .addOption(
      new Option("--api-format <format>", "completions (/v1/completions) or chat (/v1/chat/completions)").default(
        "completions",
      ),
    )
    .option("--api-key <key>", "sent as Authorization: Bearer <key>", "")
    .option("--server-type <type>", "server.type in the trace header", "vllm")
    .option("--max-concurrency <n>", "requests in flight at most", (t) => int(t, undefined) as number, 256)
    .option(
      "--warmup-requests <n>",
      "first dispatched requests sent but left out of the trace",
      (t) => int(t, undefined) as number,
      0,
    )
    .option("--no-streaming", "non-streamed requests (first chunk = first body byte)")
    .option("--unconstrained-output", "no output length limits (max_tokens omitted for chat, 2^31-1 for completions)")
    .option("--timeout <seconds>", "per-request timeout", (t) => float(t, undefined) as number, 300)
    .option(
      "--rtt-ms <ms>",
      "measured network round trip, written to the header",
      (t) => float(t, undefined) as number,
      0,
    )
    .option("--record-itl", "write every chunk time to an ITL CSV (forces streaming)")
    .option("--itl-output <path>", "ITL CSV path (default: the trace data path with .itl.csv)")
    .option(
      "--prewarm-duration <duration>",
      "send unrecorded fixed requests for this long first (e.g. 30s, 2m; 0 = none)",
      "0",
    )
    .option("--no-progress", "no progress lines on stderr");
  for (const f of SHARED_FLAGS) cmd.addOption(sharedOption(f));
  cmd.addHelpText(
    "after",
    "\nThe workload flags are those of `blis run`; --num-requests defaults to 100 there and here.\n" +
      "The trace goes to --trace-header/--trace-data, progress and logs to stderr, the summary to stdout.\n" +
      "Example: blis observe --server http://localhost:8000 --model meta-llama/Llama-3.1-8B-Instruct \\\n" +
      "  --rate 5 --num-requests 200 --trace-header obs.yaml --trace-data obs.csv",
  );
  cmd.action(async (opts: ObserveCliOptions) => {
    await observeCli(opts, io);
  });
}

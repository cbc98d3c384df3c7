import { Command, Option } from "commander";
import { parseParams } from "../util/policyRegistry.js";
import { saturationParams } from "../features/saturation/saturation.js";
import { runFlags, type AnyFlagDef } from "../config/runFlags.js";
import { flagParser } from "../config/parseFlagValue.js";
import type { RunInput } from "../config/runOptions.js";
import { Logger, parseLogLevel } from "../util/log.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";
import { checkRunInputs } from "./inputPaths.js";
import { checkOutputFiles, checkOutputPath, writeOutput } from "./outputPaths.js";
import { RUN_DEFAULTS } from "../config/runOptions.js";
import { createRunProgress, type RunProgressMode } from "./runProgress.js";
import type { SimulationResult } from "../sim/simulate.js";
import type { ResolvedLatency } from "../latency/backends/backend.js";
import { saturationReportJson } from "../saturation/analyze.js";
import { writeFileAtomic } from "../util/atomicWrite.js";

export function optionFor(f: AnyFlagDef): Option {
  const value =
    f.type === "bool"
      ? " [bool]"
      : f.type === "strings"
        ? ` <${f.metavar ?? "path"}>`
        : ` <${f.metavar ?? (f.type === "floats" ? "list" : f.type)}>`;
  const help = f.def !== "" && f.type !== "strings" ? `${f.help} (default ${f.def})` : f.help;
  const o = new Option(f.flag + value, help).argParser(flagParser(f.type, f.flag));
  if (f.type === "bool") o.preset("true");
  return o;
}

/** Adds `blis run` with every simulation flag. */
export function registerRunCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command("run")
    .description("run a simulation and print its metrics")
    .addHelpText(
      "after",
      "\nTimes are in ticks (1 tick = 1 µs). Metrics go to stdout, logs to stderr.\n" +
        "Example: blis run --model meta-llama/llama-3.1-8b-instruct --rate 10 --num-requests 200",
    );
  // Read when the command is built, so that policies registered in-process bring their flags.
  const flags = runFlags();
  for (const f of flags) cmd.addOption(optionFor(f));
  cmd.option("--progress", "show progress on stderr even when it is not a terminal (plain lines, once a second)");
  cmd.option("--no-progress", "no progress on stderr (default: a bar on a terminal once a run takes over 2 s)");
  cmd.action(async (opts: Record<string, unknown>) => {
    const mode = opts["progress"] === true ? "on" : opts["progress"] === false ? "off" : "auto";
    await runCli(runInputFrom(opts, flags), io, mode);
  });
}

/** The run options among parsed command options (only flags the user gave). */
export function runInputFrom(opts: Record<string, unknown>, flags: readonly AnyFlagDef[]): RunInput {
  const input: Record<string, unknown> = {};
  for (const f of flags) {
    if (opts[f.key] === undefined) continue;
    input[f.key] = f.type === "bool" && opts[f.key] === "true" ? true : opts[f.key];
  }
  return input as RunInput;
}

/** Checks the run's input files and outputs before anything is simulated. */
async function checkRunFiles(input: RunInput): Promise<void> {
  checkRunInputs(input);
  if (input.resultsPath !== undefined && input.resultsPath !== "") checkOutputPath("--results-path", input.resultsPath);
  checkSaturationReport(input);
  if (input.report !== undefined && input.report !== "") {
    const { reportDataPath } = await import("../report/runReport.js");
    checkOutputFiles("--report", [input.report, reportDataPath(input.report)]);
  }
}

/** --saturation-report must be writable before the run (with --detectors; else simulate says so). */
export function checkSaturationReport(input: RunInput): void {
  const p = input.saturationReport;
  if (p !== undefined && p !== "" && input.detectors !== undefined && input.detectors !== "")
    checkOutputPath("--saturation-report", p);
}

/** Writes the detectors' labels and trace when --saturation-report asks for them. */
export function writeSaturationReport(res: SimulationResult): void {
  const report = parseParams(saturationParams, res.options).saturationReport;
  if (res.saturation === null || report === "") return;
  writeOutput("--saturation-report", report, saturationReportJson(res.saturation), writeFileAtomic);
}

export async function runCli(input: RunInput, io: CliIo, progressMode: RunProgressMode = "auto"): Promise<void> {
  const level = parseLogLevel(input.log ?? RUN_DEFAULTS.log);
  if (level === null) throw new UserError(`Invalid log level: ${input.log}`);
  const logger = new Logger(level, io.stderrLine);
  await checkRunFiles(input);
  // Loaded on demand so that other commands (and --help) start quickly.
  const { simulate } = await import("../sim/simulate.js");
  const { renderStdout } = await import("../sim/renderStdout.js");
  const { coefficientNote } = await import("../latency/backends/coefficientNote.js");
  const progress = createRunProgress(progressMode, io.stderrStream, io.stderrLine);
  // Which coefficients the run uses and where they were read: information, but shown at the default
  // level (hidden by --log error or quieter), since a file read or not read otherwise leaves no trace.
  const onStart = (lat: ResolvedLatency): void => {
    if (logger.enabled("warn")) io.stderrLine(`level=info msg=${JSON.stringify(coefficientNote(lat))}`);
  };
  const res = await (async () => {
    try {
      return await simulate(input, {
        logger,
        onStart,
        hooks: progress.hook !== undefined ? { progress: progress.hook } : {},
      });
    } finally {
      progress.stop();
    }
  })();
  const out = renderStdout(res);
  io.stdout(out.head);
  if (res.options.resultsPath !== "") {
    const { goJson } = await import("../util/goFormat.js");
    writeOutput("--results-path", res.options.resultsPath, goJson(res.resultsObject()), writeFileAtomic);
    logger.info(`Metrics written to: ${res.options.resultsPath}`);
  }
  writeSaturationReport(res);
  if (out.fitnessError !== null) throw out.fitnessError;
  io.stdout(out.tail);
  if (res.options.report !== "") {
    const { writeRunReport } = await import("../report/runReport.js");
    const written = writeRunReport(res.options.report, res);
    logger.info(`Report written to: ${written.html} (data: ${written.data})`);
  }
}

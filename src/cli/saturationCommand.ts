// `blis saturation`: the arrival rate at which a configuration saturates, found by probing rates
// in-process on the sweep engine (docs/saturation.md "Finding the saturation rate").
import { Command, InvalidArgumentError } from "commander";
import { runFlags } from "../config/runFlags.js";
import { defaultJobs } from "../experiment/jobs.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";
import { optionFor, runInputFrom } from "./runCommand.js";
import { checkOutputPath } from "./outputPaths.js";
import { parseDetectorSelection } from "../saturation/config.js";

/** Run flags a probe takes from the command line: all but what the search sets or writes. */
export const SATURATION_OWN_KEYS: ReadonlySet<string> = new Set([
  "rate",
  "numRequests",
  "resultsPath",
  "report",
  "reportInterval",
  "detectors",
  "saturationReport",
  "saturationFinalWindow",
]);
export const SATURATION_RUN_FLAGS = runFlags().filter((f) => !SATURATION_OWN_KEYS.has(f.key));

const positive =
  (flag: string, integer = false) =>
  (text: string): number => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isSafeInteger(n)))
      throw new InvalidArgumentError(
        `${flag} must be a ${integer ? "positive integer" : "finite number > 0"}, got "${text}"`,
      );
    return n;
  };

export function registerSaturationCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command("saturation")
    .description("find the arrival rate a configuration cannot sustain, by probing rates")
    .option("--min-rate <req/s>", "lowest rate probed (default 1)", positive("--min-rate"))
    .option("--max-rate <req/s>", "highest rate probed (default 1000)", positive("--max-rate"))
    .option(
      "--precision <fraction>",
      "stop when the saturated and sustained rates are this close, relative (default 0.02)",
      positive("--precision"),
    )
    .option("--requests <n>", "requests per probe (default 6000)", positive("--requests", true))
    .option(
      "--probes-per-round <n>",
      "rates probed per round; results do not depend on --jobs (default 3)",
      positive("--probes-per-round", true),
    )
    .option(
      "--min-ratio <fraction>",
      "a probe completing fewer than this many requests per arrival in the second half of its arrivals is saturated (default 0.97)",
      positive("--min-ratio"),
    )
    .option(
      "--detectors <names>",
      'also count a probe saturated when these detectors say OVERLOADED: composite, threshold, backlog-drift, a list or "all" (default: none; every probe shows all three labels)',
    )
    .option("--timeout-s <s>", "wall-clock limit per probe (default 600)", positive("--timeout-s"))
    .option(
      "--jobs <n>",
      `probes run at a time (default: number of CPUs, ${defaultJobs()} here)`,
      positive("--jobs", true),
    )
    .option("--out <file.csv>", "also write the probes as CSV")
    .option("--progress", "progress on stderr even when it is not a terminal")
    .option("--no-progress", "no progress on stderr")
    .addHelpText(
      "after",
      "\nEvery run flag below sets the configuration probed (model, instances, routing, workload spec, seed, ...).\n" +
        "Example: blis saturation --model meta-llama/llama-3.1-8b-instruct --jobs 2",
    );
  for (const f of SATURATION_RUN_FLAGS) cmd.addOption(optionFor(f));
  cmd.action(async (opts: Record<string, unknown>) => {
    await saturationCli(opts, runInputFrom(opts, SATURATION_RUN_FLAGS), io);
  });
}

async function saturationCli(
  opts: Record<string, unknown>,
  base: ReturnType<typeof runInputFrom>,
  io: CliIo,
): Promise<void> {
  const num = (k: string, d: number): number => (opts[k] as number | undefined) ?? d;
  const minRate = num("minRate", 1);
  const maxRate = num("maxRate", 1000);
  if (minRate > maxRate) throw new UserError(`--min-rate (${minRate}) must not exceed --max-rate (${maxRate})`);
  const precision = num("precision", 0.02);
  if (precision >= 1) throw new UserError(`--precision must be below 1, got ${precision}`);
  const minRatio = num("minRatio", 0.97);
  if (minRatio > 1) throw new UserError(`--min-ratio must be at most 1, got ${minRatio}`);
  const out = opts["out"] as string | undefined;
  if (out !== undefined) checkOutputPath("--out", out);
  const settings = {
    base,
    minRate,
    maxRate,
    precision,
    requests: num("requests", 6000),
    probesPerRound: num("probesPerRound", 3),
    minRatio,
    detectors: parseDetectorSelection((opts["detectors"] as string | undefined) ?? "") ?? [],
    seed: Number(base.seed ?? 42),
    timeoutS: num("timeoutS", 600),
  };
  const { runSaturationSearch } = await import("./saturationRun.js");
  await runSaturationSearch(
    settings,
    { jobs: num("jobs", defaultJobs()), progress: opts["progress"] as boolean | undefined, out },
    io,
  );
}

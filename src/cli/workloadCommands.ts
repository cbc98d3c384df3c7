// `blis convert …` and `blis compose`: turn external workload descriptions into v2 workload
// specs printed as YAML on stdout (logs go to the logger, i.e. stderr).

import { fileURLToPath } from "node:url";
import { Option, type Command } from "commander";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import type { WorkloadSpec } from "../workload/index.js";
import { SCENARIO_NAMES } from "../workload/scenarios.js";
import { registerConvertMeasured } from "./convertMeasuredCommand.js";

/** The workload layer, loaded when a workload command runs (keeps other commands starting fast). */
const wl = () => import("../workload/index.js");

export interface WorkloadCommandIo {
  stdout: (s: string) => void;
  logger: Logger;
}

/** The defaults.yaml shipped with the package (dist/src/cli → package root/data). */
export function bundledDefaultsPath(): string {
  return fileURLToPath(new URL("../../../data/defaults.yaml", import.meta.url));
}

function parseFloatFlag(flag: string): (v: string) => number {
  return (v) => {
    const t = v.trim();
    const n = t === "" ? NaN : Number(t);
    if (Number.isNaN(n) && !/^[+-]?nan$/i.test(t)) {
      throw new UserError(
        `invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseFloat: parsing ${JSON.stringify(v)}: invalid syntax`,
      );
    }
    return n;
  };
}

function parseBigIntFlag(flag: string, v: string): bigint {
  if (!/^[+-]?\d+$/.test(v.trim())) {
    throw new UserError(
      `invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`,
    );
  }
  const b = BigInt(v.trim());
  if (b > 9223372036854775807n || b < -9223372036854775808n) {
    throw new UserError(
      `invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`,
    );
  }
  return b;
}

function parseIntFlag(flag: string): (v: string) => number {
  return (v) => Number(parseBigIntFlag(flag, v));
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * `--seed` written into the spec; the default is a bigint, so its help text is given (commander would JSON-encode it).
 */
function seedOption(help: string): Option {
  return new Option("--seed <seed>", help).argParser((v: string) => parseBigIntFlag("--seed", v)).default(42n, "42");
}

export function registerWorkloadCommands(program: Command, io: WorkloadCommandIo): void {
  const print = async (spec: WorkloadSpec): Promise<void> => io.stdout((await wl()).serializeWorkloadSpec(spec));

  const convert = program
    .command("convert")
    .description("convert external workload descriptions into a v2 workload-spec YAML on stdout");

  convert
    .command("preset")
    .description("named preset from the defaults file → v2 spec")
    .requiredOption("--name <name>", "preset name (a key of workloads: in the defaults file, e.g. chatbot)")
    .option("--rate <rate>", "aggregate arrival rate in requests/second (finite, > 0)", parseFloatFlag("--rate"), 1.0)
    .option("--num-requests <n>", "number of requests (> 0)", parseIntFlag("--num-requests"), 100)
    .option(
      "--defaults-filepath <path>",
      "defaults file holding the workloads: presets (default: the bundled data/defaults.yaml)",
    )
    // The seed `run --workload <name>` would use, so that running the file reproduces that run.
    .addOption(seedOption("workload seed written into the spec (run --workload <name> uses --seed, default 42)"))
    .action(
      async (opts: { name: string; rate: number; numRequests: number; defaultsFilepath?: string; seed: bigint }) => {
        // Flags are checked before the defaults file is read.
        const w = await wl();
        w.checkRateFlag(opts.rate);
        w.checkNumRequestsFlag(opts.numRequests);
        const presets = w.readPresetsFromDefaults(opts.defaultsFilepath ?? bundledDefaultsPath());
        await print(w.convertPreset(opts.name, presets, opts.rate, opts.numRequests, opts.seed));
      },
    );

  convert
    .command("csv-trace")
    .description("legacy CSV trace → v2 spec (lossy: average rate and lengths, arrivals not replayed)")
    .requiredOption("--file <path>", "CSV trace file")
    .option(
      "--horizon <ticks>",
      "ignore rows arriving after this tick (0 = no truncation)",
      parseIntFlag("--horizon"),
      0,
    )
    .action(async (opts: { file: string; horizon: number }) => {
      await print((await wl()).convertCsvTrace(opts.file, opts.horizon));
    });

  convert
    .command("servegen")
    .description("ServeGen data directory → v2 spec (aggregate_rate written as the placeholder 1.0)")
    .requiredOption("--path <dir>", "directory with chunk-*-trace.csv and chunk-*-dataset.json files")
    .action(async (opts: { path: string }) => {
      await print((await wl()).convertServeGen(opts.path, io.logger));
    });

  convert
    .command("inference-perf")
    .description("inference-perf YAML (inference_perf: section) → v2 spec")
    .requiredOption("--spec <path>", "YAML file with an inference_perf section")
    .option(
      "--rate-schedule",
      "one client per system prompt and user whose rate_schedule follows the stages (instead of clients per stage)",
    )
    .action(async (opts: { spec: string; rateSchedule?: boolean }) => {
      await print((await wl()).convertInferencePerf(opts.spec, io.logger, opts.rateSchedule === true));
    });

  convert
    .command("scenario")
    .description(`built-in scenario → v2 spec (extension beyond BLIS): ${SCENARIO_NAMES.join(", ")}`)
    .requiredOption("--name <name>", `scenario name (${SCENARIO_NAMES.join(", ")})`)
    .option("--rate <rate>", "aggregate arrival rate in requests/second (finite, > 0)", parseFloatFlag("--rate"), 1.0)
    .option(
      "--num-requests <n>",
      "number of requests written into the spec (> 0; without it, run needs --num-requests or --horizon)",
      parseIntFlag("--num-requests"),
    )
    .addOption(seedOption("workload seed written into the spec"))
    .action(async (opts: { name: string; rate: number; seed: bigint; numRequests?: number }) => {
      await print((await wl()).convertScenario(opts.name, opts.rate, opts.seed, opts.numRequests));
    });

  registerConvertMooncake(convert, print);
  registerConvertMeasured(convert, io.logger);
  registerCompose(program, io, print);
}

function registerCompose(program: Command, io: WorkloadCommandIo, print: (spec: WorkloadSpec) => Promise<void>): void {
  program
    .command("compose")
    .description(
      "merge v2 workload specs: clients concatenated, aggregate rate = sum of rates, each client's rate_fraction scaled by its spec's share (seeds, horizons, caps and cohorts of the inputs are dropped)",
    )
    .option("--from <path>", "workload spec to merge (repeatable; at least one)", collect, [] as string[])
    .option(
      "--num-requests <n>",
      "number of requests written into the merged spec (> 0; the inputs' caps are dropped)",
      parseIntFlag("--num-requests"),
    )
    .action(async (opts: { from: string[]; numRequests?: number }) => {
      if (opts.from.length === 0) throw new UserError("at least one --from flag is required");
      await print((await wl()).composeFiles(opts.from, io.logger, opts.numRequests));
    });
}

/** `blis convert mooncake FILE` (docs/traces.md "Mooncake traces"). */
function registerConvertMooncake(convert: Command, print: (spec: WorkloadSpec) => Promise<void>): void {
  convert
    .command("mooncake")
    .description(
      "Mooncake-style JSONL trace (timestamp, input_length, output_length, hash_ids per line) → v2 spec that replays it",
    )
    .argument("<file>", "JSONL trace, one request per line")
    .option(
      "--trace-block-size <n>",
      "tokens one hash id stands for (the published traces: 512)",
      parseIntFlag("--trace-block-size"),
      512,
    )
    .option(
      "--time-scale <f>",
      "factor on the gaps between timestamps (0.5 replays twice as fast)",
      parseFloatFlag("--time-scale"),
      1,
    )
    .option(
      "--concurrency <n>",
      "closed loop: keep N requests in flight, ignoring timestamps (0 = the trace's arrivals)",
      parseIntFlag("--concurrency"),
      0,
    )
    .addOption(seedOption("workload seed written into the spec (draws the output tokens)"))
    .action(
      async (file: string, opts: { traceBlockSize: number; timeScale: number; concurrency: number; seed: bigint }) => {
        const o = {
          blockSize: opts.traceBlockSize,
          timeScale: opts.timeScale,
          concurrency: opts.concurrency,
          seed: opts.seed,
        };
        await print((await wl()).convertMooncake(file, o));
      },
    );
}

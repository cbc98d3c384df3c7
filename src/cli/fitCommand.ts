import { Command, Option } from "commander";
import { optionFor, runInputFrom } from "./runCommand.js";
import { replayRunFlags } from "./replayCommand.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";
import { defaultJobs } from "../experiment/jobs.js";

const FIT_RUN_FLAGS = replayRunFlags().filter((f) => f.key !== "latencyModel" && f.key !== "seed");

function nonNegInt(flag: string) {
  return (v: string): number => {
    const x = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(x))
      throw new UserError(`${flag} must be an integer >= 0, got "${v}"`);
    return x;
  };
}

function positiveInt(flag: string) {
  return (v: string): number => {
    const x = nonNegInt(flag)(v);
    if (x < 1) throw new UserError(`${flag} must be an integer >= 1, got "${v}"`);
    return x;
  };
}

function nonNegNumber(flag: string) {
  return (v: string): number => {
    const x = Number(v);
    if (v.trim() === "" || !Number.isFinite(x) || x < 0)
      throw new UserError(`${flag} must be a finite number >= 0, got "${v}"`);
    return x;
  };
}

/** Adds `blis fit` (docs/calibration.md "Fit"). */
export function registerFitCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command("fit")
    .description("fit latency coefficients so that simulated TTFT, ITL and E2E match measured runs")
    .requiredOption(
      "--data <path...>",
      "measured runs to fit: experiment ids of the bundled data set (ID or ID#stageN), experiments.json[#ID], trace v2 headers, per-request CSVs",
    )
    .option("--holdout <path...>", "measured runs only evaluated, before and after (same forms as --data)")
    .requiredOption(
      "--out <file>",
      "coefficient file to write (trained-physics: read it with --latency-coeffs; blackbox: use the printed flags)",
    )
    .addOption(
      new Option("--latency-model <name>", "model whose coefficients are fitted")
        .choices(["trained-physics", "blackbox", "kernels"])
        .default("trained-physics"),
    )
    .addOption(
      new Option("--iterations <n>", "least-squares rounds, each one replay of every experiment")
        .argParser(nonNegInt("--iterations"))
        .default(8),
    )
    .addOption(
      new Option("--budget <n>", "extra replays of every experiment for a coordinate search after the rounds")
        .argParser(nonNegInt("--budget"))
        .default(0),
    )
    .option(
      "--params <list>",
      "comma-separated parameters to fit (default: alpha0,alpha1,alpha2,beta1a,beta2b,beta3,beta4,beta5,beta6,beta7, plus beta8/beta_ep when the data needs them; blackbox: alpha0-alpha2,beta0-beta2)",
    )
    .option("--terms <list>", "extra model terms to add and fit (decode_context)")
    .addOption(
      new Option("--lambda <x>", "pull toward the starting coefficients, per unit-scaled parameter")
        .argParser(nonNegNumber("--lambda"))
        .default(1e-3),
    )
    .option(
      "--start <file>",
      "coefficient file to start from (default: the bundled trained-physics coefficients; blackbox starts from --alpha-coeffs/--beta-coeffs or its bundled entry)",
    )
    .addOption(
      new Option("--seed <n>", "seed of the replays and of generated arrivals")
        .argParser(nonNegInt("--seed"))
        .default(42),
    )
    .addOption(
      new Option("--jobs <n>", "worker processes replaying experiments in parallel (default: one per CPU)")
        .argParser(positiveInt("--jobs"))
        .default(defaultJobs(), "one per CPU"),
    )
    .option("--fresh", "ignore the saved state of an earlier, interrupted fit with the same inputs")
    .addHelpText(
      "after",
      "\nRun flags below set the deployment of trace and CSV inputs (bundled experiments carry their own).\n" +
        "Example: blis fit --data h100-qwen3-14b-tp1-codegen#stage0 --holdout h100-qwen3-14b-tp1-codegen#stage1 --out qwen.yaml",
    );
  for (const f of FIT_RUN_FLAGS) cmd.addOption(optionFor(f));
  cmd.action(async (opts: Record<string, unknown>) => {
    const { runFitCli } = await import("./fitRun.js");
    await runFitCli(opts, runInputFrom(opts, FIT_RUN_FLAGS), io);
  });
}

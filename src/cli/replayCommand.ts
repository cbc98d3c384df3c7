import { Command, Option } from "commander";
import { runFlags } from "../config/runFlags.js";
import type { AnyFlagDef } from "../config/flagDef.js";
import { optionFor, runInputFrom } from "./runCommand.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";

/**
 * Run flags that also apply to a replay: everything but workload generation and the run's results
 * file; registered features' flags included (a replay is a run of recorded requests).
 */
export function replayRunFlags(): AnyFlagDef[] {
  return runFlags().filter(
    (f) =>
      (f.group !== "workload" ||
        f.key === "seed" ||
        f.key === "horizon" ||
        f.key === "timeout" ||
        f.key === "thinkTimeMs") &&
      f.key !== "resultsPath",
  );
}

/** Adds `blis replay`: simulate the requests of a trace v2 (docs/calibration.md "Replay"). */
export function registerReplayCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command("replay")
    .description("simulate exactly the requests a trace v2 records; compare with its measurements")
    .requiredOption("--trace-header <path>", "trace v2 header YAML")
    .requiredOption("--trace-data <path>", "trace v2 data CSV")
    .option(
      "--results-path <path>",
      "write one JSON entry per completed request (simulated and, when recorded, measured TTFT/E2E)",
    )
    .option("--trace-output <prefix>", "write the replayed trace as <prefix>.yaml and <prefix>.csv (mode replayed)")
    .option("--metrics-path <path>", "write the aggregate metrics JSON (with cache_hit_rate)")
    .option("--skip-warmup", "leave out rows whose request_id is below the header's warm_up_requests")
    .addOption(
      new Option("--skip-first-seconds <s>", "leave out rows arriving in the first S seconds (cold start)").argParser(
        parseSeconds,
      ),
    )
    .addOption(
      new Option(
        "--session-mode <mode>",
        "fixed: replay every row at its recorded time; closed-loop: a session's later rounds follow the completion of the previous one",
      )
        .choices(["fixed", "closed-loop"])
        .default("fixed"),
    )
    .option(
      "--think-time-dist <dist>",
      "closed-loop think time: lognormal:mu=M,sigma=S[,min=T][,max=T] (ln seconds) or constant:value=T (T in s, ms or us; bare = ms)",
    )
    .addHelpText(
      "after",
      "\nEvery run flag below sets the simulated deployment (model, hardware, TP, batch limits, KV, latency model).\n" +
        "Example: blis replay --trace-header t.yaml --trace-data t.csv --model qwen/qwen3-14b --results-path r.json",
    );
  const flags = replayRunFlags();
  for (const f of flags) cmd.addOption(optionFor(f));
  cmd.action(async (opts: Record<string, unknown>) => {
    const { runReplayCli } = await import("./replayRun.js");
    await runReplayCli(opts, runInputFrom(opts, flags), io);
  });
}

function parseSeconds(v: string): number {
  const x = Number(v);
  if (v.trim() === "" || !Number.isFinite(x) || x < 0)
    throw new UserError(`--skip-first-seconds must be a finite number >= 0, got "${v}"`);
  return x;
}

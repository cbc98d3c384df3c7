// `blis sweep merge --out DIR SHARD_DIR...`: combines the output directories of `blis sweep --shard`
// into one, then prints and writes the tables as the unsharded sweep would (docs/distributed.md).

import fs from "node:fs";
import { Command, Option } from "commander";
import type { OutputFormat } from "../experiment/render.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";
import { checkOutputDir } from "./outputPaths.js";
import { printSweepResult } from "./sweepOutput.js";

interface MergeCliOptions {
  out: string;
  plan?: string;
  format: OutputFormat;
  report?: boolean;
}

/** Merges, then builds the tables from the merged directory (no run is executed). */
export async function sweepMergeCli(shardDirs: string[], opts: MergeCliOptions, io: CliIo): Promise<string | null> {
  if (shardDirs.length === 0)
    throw new UserError("sweep merge: give the shard directories: blis sweep merge --out DIR SHARD_DIR...");
  for (const d of shardDirs)
    if (!fs.statSync(d, { throwIfNoEntry: false })?.isDirectory())
      throw new UserError(`sweep merge: ${d}: no such directory`);
  checkOutputDir("--out", opts.out);
  const { mergeShards, shardPlanSource } = await import("../experiment/merge.js");
  const planPath = opts.plan ?? shardPlanSource(shardDirs[0]!);
  if (planPath === null)
    throw new UserError(`sweep merge: ${shardDirs[0]}: the plan file is not recorded; give it with --plan`);
  const { loadPlanWithReport } = await import("../report/planOptions.js");
  const { plan, report: reportOptions } = loadPlanWithReport(planPath);
  const merged = mergeShards(plan, opts.out, shardDirs, io.stderrLine);
  io.stderrLine(
    `sweep merge: ${merged.imported} runs taken from ${shardDirs.length} ${shardDirs.length === 1 ? "directory" : "directories"}, ${merged.present} already in ${opts.out}, ${merged.missing} of ${merged.total} missing`,
  );
  if (merged.missing > 0) {
    throw new UserError(
      `sweep merge: ${merged.missing} of ${merged.total} runs are in none of the shard directories; merge the missing shards, or run them with: blis sweep ${planPath} --out ${opts.out}`,
    );
  }
  const { runSweep } = await import("../experiment/sweep.js");
  const res = await runSweep(plan, { outDir: opts.out, progress: "none", stderr: io.stderrLine });
  return printSweepResult(res, opts, reportOptions, io);
}

/** Adds `blis sweep merge`. */
export function registerSweepMerge(sweep: Command, io: CliIo): void {
  sweep
    .command("merge")
    .description("combine the output directories of sharded sweeps (--shard I/N) into one, and print its tables")
    .argument("<shard-dirs...>", "output directories of the shards")
    .option(
      "--out <dir>",
      "output directory of the merged sweep (created, or resumed when it holds runs of the same plan)",
    )
    .option("--plan <path>", "the plan file (default: the one recorded in the first shard's plan.json)")
    .addOption(new Option("--format <format>", "stdout format").choices(["text", "json", "csv"]))
    .option("--report", "also write DIR/report.html and DIR/report.json")
    .addHelpText("after", "\nExample: blis sweep merge --out out/all out/shard-0 out/shard-1 out/shard-2")
    .action(async (dirs: string[], _opts: unknown, cmd: Command) => {
      // `blis sweep` has the same flags and commander gives them to it wherever they stand, so
      // merge reads them from both commands.
      const opts = cmd.optsWithGlobals<Partial<MergeCliOptions>>();
      if (opts.out === undefined)
        throw new UserError("sweep merge needs --out DIR: blis sweep merge --out DIR SHARD_DIR...");
      const failed = await sweepMergeCli(dirs, { ...opts, out: opts.out, format: opts.format ?? "text" }, io);
      if (failed !== null) throw new UserError(`sweep: ${failed}`);
    });
}

// `blis sweep` (alias `blis experiment`): native multi-run experiments (README.md
// "Sweeps: `blis sweep`", examples/experiments/README.md); on a work queue with `--queue`, in
// slices with `--shard`, and `blis sweep merge` for the slices (docs/distributed.md).

import { Command, InvalidArgumentError, Option } from "commander";
import type { OutputFormat } from "../experiment/render.js";
import { PlanError } from "../experiment/errors.js";
import { defaultJobs } from "../experiment/jobs.js";
import type { RunExecutor } from "../experiment/pool.js";
import type { Shard } from "../experiment/sweep.js";
import { UserError } from "../util/errors.js";
import { inputFileProblem, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import type { CliIo } from "./io.js";
import { checkOutputDir } from "./outputPaths.js";
import { registerSweepMerge } from "./sweepMergeCommand.js";
import { printSweepResult } from "./sweepOutput.js";

interface SweepCliOptions {
  plan?: string;
  out?: string;
  jobs?: number;
  format: OutputFormat;
  restart?: boolean;
  progress?: boolean;
  report?: boolean;
  queue?: string;
  waitTimeout?: number;
  shard?: string;
}

/** Seconds > 0 (--wait-timeout). */
export function parsePositiveSeconds(text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not a number of seconds > 0.`);
  return n;
}

export function parseJobs(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not a positive integer.`);
  return n;
}

/** `I/N` with 0 <= I < N. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const bad = (why: string): UserError => new UserError(`--shard ${JSON.stringify(text)}: ${why}`);
  if (m === null) throw bad("expected I/N, the 0-based slice I of N (e.g. 0/4)");
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(count) || count < 1) throw bad("N must be at least 1");
  if (!Number.isSafeInteger(index) || index >= count) throw bad(`I must be between 0 and ${count - 1}`);
  return { index, count };
}

/** Flag combinations that make no sense together, before anything is read or started. */
function checkSweepFlags(opts: SweepCliOptions): void {
  if (opts.report === true && opts.out === undefined)
    throw new UserError("--report needs --out DIR (the report is written to DIR/report.html)");
  if (opts.waitTimeout !== undefined && opts.queue === undefined)
    throw new UserError("--wait-timeout needs --queue (it bounds the wait for queue workers)");
  if (opts.queue !== undefined && opts.jobs !== undefined)
    throw new UserError(
      "--jobs cannot be combined with --queue (the workers' --concurrency sets how many runs go at a time)",
    );
  if (opts.shard !== undefined) {
    if (opts.out === undefined)
      throw new UserError("--shard needs --out DIR (blis sweep merge combines the shard directories)");
    if (opts.queue !== undefined) throw new UserError("--shard cannot be combined with --queue");
    if (opts.report === true)
      throw new UserError("--report cannot be combined with --shard (use it with blis sweep merge)");
  }
}

/**
 * Runs the sweep command and returns null when every check passed and no run failed (or the plan
 * allows failures), else the line saying what failed. An invalid plan (or one that does not match
 * the output directory) throws PlanError: exit status 2.
 */
export async function sweepCli(planArg: string | undefined, opts: SweepCliOptions, io: CliIo): Promise<string | null> {
  if (planArg !== undefined && opts.plan !== undefined && planArg !== opts.plan) {
    throw new PlanError(`give the plan once (either as an argument or with --plan): "${planArg}" vs "${opts.plan}"`);
  }
  const planPath = planArg ?? opts.plan;
  if (planPath === undefined) throw new PlanError("missing plan file: blis sweep PLAN.yaml [--out DIR]");
  checkSweepFlags(opts);
  const shard = opts.shard !== undefined ? parseShard(opts.shard) : undefined;
  const { parseQueueUrl } = await import("../queue/url.js");
  const queueUrl = opts.queue !== undefined ? parseQueueUrl(opts.queue) : null;
  const unreadable = inputFileProblem(planPath, SPEC_FILE_LIMIT);
  if (unreadable !== null) throw new PlanError(`${planPath}: cannot read the plan file: ${unreadable}`);
  if (opts.out !== undefined) checkOutputDir("--out", opts.out);
  const { loadPlanWithReport } = await import("../report/planOptions.js");
  const { runSweep } = await import("../experiment/sweep.js");
  const { plan, report: reportOptions } = loadPlanWithReport(planPath);
  let executor: RunExecutor | undefined;
  if (queueUrl !== null) {
    const { QueueExecutor } = await import("../queue/coordinator.js");
    executor = await QueueExecutor.open(queueUrl, io.stderrLine, opts.waitTimeout);
  }
  try {
    const res = await runSweep(plan, {
      outDir: opts.out ?? null,
      jobs: opts.jobs ?? defaultJobs(),
      restart: opts.restart === true,
      progress: opts.progress === false ? "none" : "auto",
      stderr: io.stderrLine,
      ...(executor !== undefined ? { pool: executor } : {}),
      ...(shard !== undefined ? { shard } : {}),
    });
    if (shard !== undefined) {
      io.stderrLine(
        `sweep: shard ${shard.index}/${shard.count}: ${res.executed + res.reused} runs in ${res.outDir}; combine the shards with: blis sweep merge --out DIR SHARD_DIR...`,
      );
      return null;
    }
    return await printSweepResult(res, opts, reportOptions, io);
  } finally {
    await executor?.close();
  }
}

/** Adds `blis sweep` and its alias `blis experiment`. */
export function registerSweepCommand(program: Command, io: CliIo): void {
  const sweep = program
    .command("sweep")
    .alias("experiment")
    .description("run a plan of configurations × seeds in parallel and print comparison tables and checks")
    .argument("[plan]", "plan YAML file")
    .option("--plan <path>", "plan YAML file (instead of the argument)")
    .option(
      "--out <dir>",
      "output directory: runs.jsonl, <config>/<seed>.txt, tables.md, tables.csv, summary.json; rerunning resumes",
    )
    .option("--jobs <n>", `worker processes (default: number of CPUs, ${defaultJobs()} here)`, parseJobs)
    .addOption(new Option("--format <format>", "stdout format").choices(["text", "json", "csv"]).default("text"))
    .option("--restart", "discard the results already in --out (needed when the plan changed)")
    .option("--no-progress", "no progress output on stderr")
    .option(
      "--report",
      "also write DIR/report.html (charts of the tables, Pareto front) and DIR/report.json; needs --out",
    )
    .option(
      "--queue <url>",
      "run on the workers of a Redis work queue (redis://HOST:PORT[/DB]; see blis worker) instead of local processes",
    )
    .option(
      "--wait-timeout <s>",
      "with --queue: fail (exit 1) when no worker has been connected to the queue for this many seconds (default: wait)",
      parsePositiveSeconds,
    )
    .option(
      "--shard <i/n>",
      "run only slice I (0-based) of N of the runs into --out; combine the slices with blis sweep merge",
    )
    .addHelpText(
      "after",
      "\nExit status: 0 every check passed, 1 a check or a run failed (allow_failures: true in the plan accepts\n" +
        "failed runs), 2 the plan is invalid.\n" +
        "Example: blis sweep examples/experiments/horizontal-scaling.yaml --out out/hscale --jobs 2",
    )
    .action(async (planArg: string | undefined, opts: SweepCliOptions) => {
      const failed = await sweepCli(planArg, opts, io);
      if (failed !== null) throw new UserError(`sweep: ${failed}`);
    });
  registerSweepMerge(sweep, io);
}

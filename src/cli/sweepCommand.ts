// `blis sweep` (alias `blis experiment`): native multi-run experiments (README.md
// "Sweeps: `blis sweep`", examples/experiments/README.md).

import { Command, InvalidArgumentError, Option } from "commander";
import type { OutputFormat } from "../experiment/render.js";
import { PlanError } from "../experiment/errors.js";
import { defaultJobs } from "../experiment/jobs.js";
import { UserError } from "../util/errors.js";
import { inputFileProblem, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import type { CliIo } from "./io.js";
import { checkOutputDir } from "./outputPaths.js";

interface SweepCliOptions {
  plan?: string;
  out?: string;
  jobs?: number;
  format: OutputFormat;
  restart?: boolean;
  progress?: boolean;
  report?: boolean;
}

function parseJobs(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not a positive integer.`);
  return n;
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
  if (opts.report === true && opts.out === undefined)
    throw new UserError("--report needs --out DIR (the report is written to DIR/report.html)");
  const unreadable = inputFileProblem(planPath, SPEC_FILE_LIMIT);
  if (unreadable !== null) throw new PlanError(`${planPath}: cannot read the plan file: ${unreadable}`);
  if (opts.out !== undefined) checkOutputDir("--out", opts.out);
  const { loadPlanWithReport } = await import("../report/planOptions.js");
  const { runSweep } = await import("../experiment/sweep.js");
  const { renderReport } = await import("../experiment/render.js");
  const { sweepFailureLine } = await import("../experiment/report.js");
  const { plan, report: reportOptions } = loadPlanWithReport(planPath);
  const res = await runSweep(plan, {
    outDir: opts.out ?? null,
    jobs: opts.jobs ?? defaultJobs(),
    restart: opts.restart === true,
    progress: opts.progress === false ? "none" : "auto",
    stderr: io.stderrLine,
  });
  io.stdout(renderReport(res.report, opts.format));
  if (res.outDir !== null) io.stderrLine(`sweep: tables written to ${res.outDir} (tables.md, tables.csv, summary.json)`);
  if (opts.report === true) {
    const { writeSweepReport } = await import("../report/sweepReport.js");
    io.stderrLine(`sweep: report written to ${writeSweepReport(res, reportOptions.pareto)}`);
  }
  return sweepFailureLine(res.report);
}

/** Adds `blis sweep` and its alias `blis experiment`. */
export function registerSweepCommand(program: Command, io: CliIo): void {
  program
    .command("sweep")
    .alias("experiment")
    .description("run a plan of configurations × seeds in parallel and print comparison tables and checks")
    .argument("[plan]", "plan YAML file")
    .option("--plan <path>", "plan YAML file (instead of the argument)")
    .option("--out <dir>", "output directory: runs.jsonl, <config>/<seed>.txt, tables.md, tables.csv, summary.json; rerunning resumes")
    .option("--jobs <n>", `worker processes (default: number of CPUs, ${defaultJobs()} here)`, parseJobs)
    .addOption(new Option("--format <format>", "stdout format").choices(["text", "json", "csv"]).default("text"))
    .option("--restart", "discard the results already in --out (needed when the plan changed)")
    .option("--no-progress", "no progress output on stderr")
    .option("--report", "also write DIR/report.html (charts of the tables, Pareto front) and DIR/report.json; needs --out")
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
}

// `blis optimize SPACE.yaml --out DIR`: Bayesian optimization of policy parameters (src/optimize/).

import fs from "node:fs";
import path from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { defaultJobs } from "../experiment/jobs.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import type { CliIo } from "./io.js";
import { checkOutputDir, writeOutput } from "./outputPaths.js";
import { parsePositiveSeconds } from "./sweepCommand.js";
import { UserError } from "../util/errors.js";

interface OptimizeCliOptions {
  out: string;
  jobs?: number;
  restart?: boolean;
  progress?: boolean;
  queue?: string;
  waitTimeout?: number;
}

function parseJobs(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not a positive integer.`);
  return n;
}

/** The outermost directory of `dir` that does not exist yet (what creating it would add), or null. */
function firstMissingDir(dir: string): string | null {
  let missing: string | null = null;
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) missing = d;
  return missing;
}

/** Runs the search and writes its results; errors (invalid space, changed space) are thrown as UserErrors. */
export async function optimizeCli(spaceFile: string, opts: OptimizeCliOptions, io: CliIo): Promise<void> {
  const { parseQueueUrl } = await import("../queue/url.js");
  const queueUrl = opts.queue !== undefined ? parseQueueUrl(opts.queue) : null;
  if (opts.waitTimeout !== undefined && queueUrl === null)
    throw new UserError("--wait-timeout needs --queue (it bounds the wait for queue workers)");
  checkOutputDir("--out", opts.out);
  const { loadSpace } = await import("../optimize/space.js");
  const { optimize } = await import("../optimize/search.js");
  const { renderConvergence, renderEvaluationsCsv, renderEvaluationsJson, renderSummary, summarizeBest } =
    await import("../optimize/output.js");
  const space = loadSpace(spaceFile);
  const executor =
    queueUrl !== null
      ? await (await import("../queue/coordinator.js")).QueueExecutor.open(queueUrl, io.stderrLine, opts.waitTimeout)
      : undefined;
  const created = firstMissingDir(opts.out);
  let res;
  try {
    res = await optimize(space, {
      outDir: opts.out,
      jobs: opts.jobs ?? defaultJobs(),
      restart: opts.restart === true,
      progress: opts.progress !== false,
      stderr: io.stderrLine,
      ...(executor !== undefined ? { pool: executor } : {}),
    });
  } catch (e) {
    // A failed baseline leaves only its own record: a directory this command made holds nothing worth resuming.
    if (created !== null && e instanceof Error && e.name === "BaselineError")
      fs.rmSync(created, { recursive: true, force: true });
    throw e;
  } finally {
    await executor?.close();
  }
  const best = summarizeBest(res);
  const put = (name: string, data: string): void =>
    writeOutput("--out", path.join(opts.out, name), data, writeFileAtomic);
  put("evaluations.csv", renderEvaluationsCsv(res));
  put("evaluations.json", renderEvaluationsJson(res, best));
  put(
    "convergence.md",
    `# Convergence of ${space.name}\n\n${space.objective.direction} ${space.objective.metric} (mean over seeds ${space.seeds.join(", ")}); ` +
      `"best so far" counts feasible evaluations only.\n\n${renderConvergence(res, true)}`,
  );
  if (best !== null) {
    if (best.workloadYaml !== null) put("workload.yaml", best.workloadYaml);
    put("best.yaml", best.bundleYaml);
    put("best-command.txt", `${best.command}\n`);
  } else {
    for (const f of ["best.yaml", "best-command.txt"]) fs.rmSync(path.join(opts.out, f), { force: true });
  }
  io.stdout(renderSummary(res, best));
  io.stderrLine(
    `optimize: ${res.simulations} simulations run, ${res.reused} evaluations reused, wall time ${res.wallS.toFixed(1)} s; results in ${opts.out} (evaluations.csv, evaluations.json, convergence.md${best !== null ? ", best.yaml, best-command.txt" : ""})`,
  );
}

/** Adds `blis optimize`. */
export function registerOptimizeCommand(program: Command, io: CliIo): void {
  program
    .command("optimize")
    .description("search policy parameters by Bayesian optimization (GP + expected improvement) over simulated runs")
    .argument("<space>", "search-space YAML file")
    .requiredOption(
      "--out <dir>",
      "output directory: evaluations.jsonl (resume log), evaluations.csv/json, convergence.md, best.yaml; rerunning resumes",
    )
    .option(
      "--jobs <n>",
      `worker processes, and points proposed per step of a new search (default: number of CPUs, ${defaultJobs()} here)`,
      parseJobs,
    )
    .option("--restart", "discard the evaluations already in --out (needed when the space changed)")
    .option(
      "--queue <url>",
      "evaluate each step's points on the workers of a Redis work queue (redis://HOST:PORT[/DB]; see blis worker); --jobs is then the points per step",
    )
    .option(
      "--wait-timeout <s>",
      "with --queue: fail (exit 1) when no worker has been connected to the queue for this many seconds (default: wait)",
      parsePositiveSeconds,
    )
    .option("--no-progress", "no per-evaluation lines (k/budget, best so far, ETA) on stderr")
    .addHelpText(
      "after",
      "\nExit status: 0 done (also when nothing feasible was found), 1 invalid space, space changed since the\n" +
        "evaluations in --out (use --restart), or the baseline failed.\n" +
        "Example: blis optimize examples/optimize/strategy.yaml --out out/strategy-opt --jobs 2",
    )
    .action(async (spaceFile: string, opts: OptimizeCliOptions) => {
      await optimizeCli(spaceFile, opts, io);
    });
}

// `blis worker --queue redis://HOST:PORT[/DB]`: runs the simulations that `blis sweep --queue` and
// `blis optimize --queue` put on a Redis work queue, until stopped (docs/distributed.md).

import { Command, InvalidArgumentError } from "commander";
import { defaultJobs } from "../experiment/jobs.js";
import type { CliIo } from "./io.js";
import { parseJobs } from "./sweepCommand.js";

interface WorkerCliOptions {
  queue: string;
  concurrency?: number;
  stallTimeout: number;
}

function parseSeconds(text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < 1)
    throw new InvalidArgumentError(`${JSON.stringify(text)} is not a number of seconds >= 1.`);
  return n;
}

/** Runs jobs until SIGTERM or SIGINT; a second signal stops at once (the runs in progress go back to the queue). */
export async function workerCli(opts: WorkerCliOptions, io: CliIo): Promise<void> {
  const { parseQueueUrl } = await import("../queue/url.js");
  const url = parseQueueUrl(opts.queue);
  const { runQueueWorker } = await import("../queue/worker.js");
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (stop.signal.aborted) process.exit(sig === "SIGINT" ? 130 : 143);
    stop.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    await runQueueWorker(
      { url, concurrency: opts.concurrency ?? defaultJobs(), stallTimeoutS: opts.stallTimeout, say: io.stderrLine },
      stop.signal,
    );
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}

/** Adds `blis worker`. */
export function registerWorkerCommand(program: Command, io: CliIo): void {
  program
    .command("worker")
    .description("run the simulations of sweeps and searches started with --queue, until stopped")
    .requiredOption("--queue <url>", "the Redis work queue: redis://HOST:PORT[/DB]")
    .option("--concurrency <n>", `runs at a time (default: number of CPUs, ${defaultJobs()} here)`, parseJobs)
    .option(
      "--stall-timeout <s>",
      "seconds after which the run of a worker that stopped answering (killed, lost) goes to another worker",
      parseSeconds,
      30,
    )
    .addHelpText(
      "after",
      "\nSIGTERM or Ctrl-C finishes the runs in progress, then exits with status 0; a second one exits at once.\n" +
        "Example: blis worker --queue redis://127.0.0.1:6379 --concurrency 2",
    )
    .action(async (opts: WorkerCliOptions) => {
      await workerCli(opts, io);
    });
}

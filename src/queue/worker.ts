// `blis worker`: takes runs from the queue and simulates them in a local process pool, one per
// `concurrency` slot, until stopped. Stopping (SIGTERM) finishes the runs in progress first; a
// worker that dies instead (SIGKILL, lost machine) stops renewing its job locks, and another
// worker's stalled-job check puts those jobs back in the queue.

import os from "node:os";
import { DelayedError, WaitingError, Worker, type Job } from "bullmq";
import { SweepPool } from "../experiment/pool.js";
import { connectionOptions, probeRedis } from "./connect.js";
import { decodeInput, isRunJobData, KEY_PREFIX, QUEUE_NAME, type RunJobData, type RunJobResult } from "./jobs.js";
import type { QueueUrl } from "./url.js";
import { codeVersion } from "./version.js";

export interface QueueWorkerOptions {
  url: QueueUrl;
  /** Runs at a time (worker processes). */
  concurrency: number;
  /** Seconds a job stays locked without renewal before another worker takes it over. */
  stallTimeoutS: number;
  say: (line: string) => void;
}

/** A refused job comes back after this long, so that a worker of the right version can take it. */
const REFUSED_DELAY_MS = 2000;
/** A job stalled this many times (its worker died each time) fails instead of being retried again. */
const MAX_STALLS = 5;

/** Runs jobs until `stop` is aborted, then finishes the runs in progress and returns. */
export async function runQueueWorker(opts: QueueWorkerOptions, stop: AbortSignal): Promise<number> {
  await probeRedis(opts.url);
  const version = codeVersion();
  const name = `${os.hostname()}:${process.pid}`;
  const pool = new SweepPool(opts.concurrency);
  const refusedVersions = new Set<string>();
  let done = 0;
  const handle = async (job: Job<RunJobData, RunJobResult>, token?: string): Promise<RunJobResult> => {
    const data: unknown = job.data;
    if (!isRunJobData(data) || data.version !== version) {
      const theirs = isRunJobData(data) ? data.version : "an unknown format";
      if (!refusedVersions.has(theirs)) {
        refusedVersions.add(theirs);
        opts.say(
          `worker: refusing runs of blis-ts ${theirs}: this worker is ${version} and would not run them identically; they stay queued`,
        );
      }
      await job.moveToDelayed(Date.now() + REFUSED_DELAY_MS, token);
      throw new DelayedError();
    }
    const t0 = performance.now();
    const outcome = await pool.run(decodeInput(data.input), data.timeoutMs);
    const wallS = (performance.now() - t0) / 1000;
    if (outcome.kind === "cancelled") throw new Error("run cancelled");
    if (outcome.kind === "crash" && stop.aborted) {
      // Its process went with a signal to the process group while this worker was stopping: the
      // run is not at fault, so another worker runs it.
      opts.say(`worker: ${data.key} interrupted; it goes back to the queue`);
      await job.moveToWait(token);
      throw new WaitingError();
    }
    done++;
    const status =
      outcome.kind === "done"
        ? outcome.result.exitCode === 0
          ? "ok"
          : `error:${outcome.result.exitCode}`
        : outcome.kind;
    opts.say(`worker: ${data.key} ${status} in ${wallS.toFixed(2)} s (plan ${data.plan.slice(0, 12)})`);
    return { outcome, wallS: Math.round(wallS * 1000) / 1000, worker: name };
  };
  const lockMs = Math.max(1000, Math.round(opts.stallTimeoutS * 1000));
  const worker = new Worker<RunJobData, RunJobResult>(QUEUE_NAME, handle, {
    connection: connectionOptions(opts.url),
    prefix: KEY_PREFIX,
    concurrency: opts.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: MAX_STALLS,
    autorun: false,
  });
  worker.on("error", () => undefined); // connection errors: the client reconnects by itself
  opts.say(
    `worker: ${name} takes runs from ${opts.url.display}, ${opts.concurrency} at a time, version ${version}; SIGTERM or Ctrl-C finishes the runs in progress and stops`,
  );
  const running = worker.run();
  await new Promise<void>((resolve) =>
    stop.aborted ? resolve() : stop.addEventListener("abort", () => resolve(), { once: true }),
  );
  opts.say(`worker: stopping after the runs in progress`);
  await worker.close();
  await running;
  await pool.close();
  opts.say(`worker: stopped after ${done} runs`);
  return done;
}

// A pool of worker processes (tinypool) running one simulation per task, with a wall-clock limit
// per task: a task past its limit is aborted, which terminates its worker.
//
// Workers are child processes rather than threads: simulations in two threads of one process
// slowed each other down far more (up to 2x per run on a 2-core machine) than the same
// simulations in two processes, and processes also keep plugin registries out of the caller.

import { fileURLToPath } from "node:url";
import Tinypool from "tinypool";
import type { RunInput } from "../config/runOptions.js";
import type { WorkerResult, WorkerTask } from "./worker.js";

/** `wallS`: the run's own wall time when it was measured elsewhere (a queue worker), else unset. */
export type RunOutcome =
  | { kind: "done"; result: WorkerResult; wallS?: number }
  | { kind: "timeout" }
  | { kind: "crash"; message: string }
  | { kind: "cancelled" };

const WORKER_FILE = fileURLToPath(new URL("./worker.js", import.meta.url));
const POOL_CHILD_URL = new URL("./poolChild.js", import.meta.url).href;

import { defaultJobs } from "./jobs.js";

export { defaultJobs };

/** What a run is part of: carried by queued jobs so that a worker's log names the sweep and run. */
export interface RunContext {
  /** The plan's fingerprint (planHashes().runs). */
  plan: string;
  /** The run key (store.ts runKey). */
  key: string;
}

/**
 * Runs simulations: the local process pool (SweepPool) or a work queue (src/queue). runSweep keeps
 * at most `jobs` runs in flight.
 */
export interface RunExecutor {
  readonly jobs: number;
  run(input: RunInput, timeoutMs: number, signal?: AbortSignal, context?: RunContext): Promise<RunOutcome>;
  close(): Promise<void>;
}

/**
 * `jobs` warm worker processes running the default export of `filename`, one task each at a time.
 * Workers start (and import the simulator) right away and stay warm between tasks; structured
 * clone over IPC keeps bigint seeds, typed arrays and NaN metrics intact.
 */
export function processPool(filename: string, jobs: number): Tinypool {
  const pool = new Tinypool({
    filename,
    minThreads: jobs,
    maxThreads: jobs,
    concurrentTasksPerWorker: 1,
    isolateWorkers: false,
    runtime: "child_process",
    serialization: "advanced",
    // The child's signal handling and parent watch are in place before anything else loads.
    execArgv: [...process.execArgv, "--import", POOL_CHILD_URL],
    // The child checks it is still this process's child (poolChild.ts), even if it starts late.
    env: {
      ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
      BLIS_POOL_PARENT: String(process.pid),
    },
  });
  // A child that dies (killed with its process group) fails its task, which reports it; the pool's
  // own "error" event would otherwise be unhandled and end the process with a stack trace.
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Worker processes for sweep runs. Reusable across sweeps (an optimizer can keep one open and pass
 * it to every runSweep call); close() when done.
 */
export class SweepPool implements RunExecutor {
  readonly jobs: number;
  private readonly pool: Tinypool;
  private closed = false;

  constructor(jobs: number = defaultJobs()) {
    if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`jobs must be an integer >= 1, got ${jobs}`);
    this.jobs = jobs;
    this.pool = processPool(WORKER_FILE, jobs);
  }

  /**
   * Runs one simulation. The limit counts from the call, so callers should keep at most `jobs`
   * tasks in flight (runSweep does). `signal` cancels the task (its worker is terminated).
   */
  async run(input: RunInput, timeoutMs: number, signal?: AbortSignal): Promise<RunOutcome> {
    if (this.closed) throw new Error("SweepPool is closed");
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, timeoutMs);
    const onCancel = (): void => ac.abort();
    signal?.addEventListener("abort", onCancel, { once: true });
    try {
      const task: WorkerTask = { input };
      const result = (await this.pool.run(task, { signal: ac.signal })) as WorkerResult;
      return { kind: "done", result };
    } catch (e) {
      if (timedOut) return { kind: "timeout" };
      if (signal?.aborted) return { kind: "cancelled" };
      const msg = e instanceof Error ? e.message : String(e);
      return { kind: "crash", message: msg.split("\n")[0]! };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCancel);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy();
  }
}

// The coordinator side of the work queue: a RunExecutor that puts each run on the BullMQ queue and
// resolves with the result a worker returned, so that runSweep (and the optimizer through it)
// records, shows progress and builds tables exactly as with the local process pool.

import { Queue, QueueEvents, type Job } from "bullmq";
import type { RunInput } from "../config/runOptions.js";
import type { RunContext, RunExecutor, RunOutcome } from "../experiment/pool.js";
import { connectionOptions, probeRedis } from "./connect.js";
import { encodeInput, JOB_FORMAT, jobId, KEY_PREFIX, QUEUE_NAME, type RunJobData, type RunJobResult } from "./jobs.js";
import type { QueueUrl } from "./url.js";
import { codeVersion } from "./version.js";
import { WaitWatch } from "./waitWatch.js";
import { UserError } from "../util/errors.js";

/** Finished jobs stay this long so that a restarted coordinator collects them instead of running them again. */
const KEEP_FINISHED_S = 7 * 24 * 3600;

interface Pending {
  data: RunJobData;
  id: string;
  added: (job: Job) => void;
  failed: (e: unknown) => void;
}

export class QueueExecutor implements RunExecutor {
  /** Every remaining run is queued at once: the workers decide how many run at a time. */
  readonly jobs = Number.MAX_SAFE_INTEGER;
  readonly version = codeVersion();
  private readonly refused = new Set<string>();
  private batch: Pending[] = [];
  private keys = new Map<string, string>();
  /** Runs queued and not yet finished. */
  private waiting = 0;
  private readonly watch: WaitWatch;
  /** Rejects every waiting run once --wait-timeout has passed without a worker. */
  private readonly gaveUp: Promise<never>;

  private constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly say: (line: string) => void,
    url: QueueUrl,
    waitTimeoutS: number | undefined,
  ) {
    let giveUp: (e: UserError) => void = () => undefined;
    this.gaveUp = new Promise<never>((_, reject) => (giveUp = reject));
    this.gaveUp.catch(() => undefined);
    this.watch = new WaitWatch({
      display: url.display,
      ...(waitTimeoutS !== undefined ? { timeoutS: waitTimeoutS } : {}),
      say,
      countWorkers: () => queue.getWorkersCount(),
      giveUp,
    });
    queue.setMaxListeners(0);
    events.setMaxListeners(0);
    // A worker of another version puts a job back as delayed (worker.ts): say so once per run.
    events.on("delayed", ({ jobId: id }) => {
      const key = this.keys.get(id);
      if (key === undefined || this.refused.has(id)) return;
      this.refused.add(id);
      this.say(
        `warning: a worker of another blis-ts version refused run ${key}; it stays queued for a worker of version ${this.version}`,
      );
    });
    events.on("stalled", ({ jobId: id }) => {
      const key = this.keys.get(id);
      if (key !== undefined)
        this.say(`warning: the worker running run ${key} stopped answering; the run went back to the queue`);
    });
  }

  /** Connects (a UserError naming the URL when Redis cannot be reached) and listens for finished jobs. */
  static async open(url: QueueUrl, say: (line: string) => void, waitTimeoutS?: number): Promise<QueueExecutor> {
    await probeRedis(url);
    const connection = connectionOptions(url);
    const queue = new Queue(QUEUE_NAME, { connection, prefix: KEY_PREFIX });
    const events = new QueueEvents(QUEUE_NAME, { connection, prefix: KEY_PREFIX });
    // The clients reconnect on their own; the runs wait meanwhile.
    queue.on("error", () => undefined);
    events.on("error", () => undefined);
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    return new QueueExecutor(queue, events, say, url, waitTimeoutS);
  }

  async run(input: RunInput, timeoutMs: number, signal?: AbortSignal, context?: RunContext): Promise<RunOutcome> {
    const data: RunJobData = {
      format: JOB_FORMAT,
      version: this.version,
      plan: context?.plan ?? "",
      key: context?.key ?? "",
      input: encodeInput(input),
      timeoutMs,
    };
    // The run key keeps the determinism check's repetition a run of its own.
    const id = jobId(this.version, input, timeoutMs, data.key);
    this.keys.set(id, data.key);
    if (signal?.aborted) return { kind: "cancelled" };
    if (++this.waiting === 1) this.watch.start();
    try {
      return await this.runQueued(data, id, signal);
    } finally {
      if (--this.waiting === 0) this.watch.stop();
    }
  }

  private async runQueued(data: RunJobData, id: string, signal: AbortSignal | undefined): Promise<RunOutcome> {
    // A queue that cannot take the job fails the sweep rather than recording a failed run.
    const job = await Promise.race([this.enqueue(data, id), this.gaveUp]);
    try {
      const cancelled = new Promise<"cancelled">((resolve) =>
        signal?.addEventListener("abort", () => resolve("cancelled"), { once: true }),
      );
      const result = await Promise.race([job.waitUntilFinished(this.events), cancelled, this.gaveUp]);
      if (result === "cancelled") return { kind: "cancelled" };
      const r = (typeof result === "string" ? JSON.parse(result) : result) as RunJobResult;
      return r.outcome.kind === "done" ? { ...r.outcome, wallS: r.wallS } : r.outcome;
    } catch (e) {
      if (e instanceof UserError) {
        // Left on the queue, a run would be taken by the next worker to come, for nobody.
        await job.remove().catch(() => undefined);
        throw e;
      }
      if (signal?.aborted) return { kind: "cancelled" };
      const msg = e instanceof Error ? e.message : String(e);
      return { kind: "crash", message: `the queue gave up on the run: ${msg.split("\n")[0]}` };
    }
  }

  /** Adds jobs in bulk: the runs asked for in one tick go to Redis in one round trip, in call order. */
  private enqueue(data: RunJobData, id: string): Promise<Job> {
    return new Promise((added, failed) => {
      this.batch.push({ data, id, added, failed });
      if (this.batch.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    const opts = (id: string) => ({
      jobId: id,
      removeOnComplete: { age: KEEP_FINISHED_S },
      // A failed job (stalled too often) is dropped, so that the next sweep queues it afresh.
      removeOnFail: true,
    });
    try {
      const jobs = await this.queue.addBulk(batch.map((p) => ({ name: "run", data: p.data, opts: opts(p.id) })));
      batch.forEach((p, i) => p.added(jobs[i]!));
    } catch (e) {
      for (const p of batch) p.failed(e);
    }
  }

  async close(): Promise<void> {
    this.watch.stop();
    await this.events.close();
    await this.queue.close();
  }
}

// The replay loop of `blis observe` (docs/observe.md): each request of the workload is sent at
// wall-clock start + its planned arrival, once a concurrency slot is free, and its timings are
// recorded as a trace row. The first `warmupRequests` dispatched requests are sent but not
// recorded.

import { performance } from "node:perf_hooks";
import { silentLogger, type Logger } from "../util/log.js";
import type { RequestSource, TraceRecord } from "../workload/index.js";
import { ObserveClient, type ClientOptions } from "./client.js";
import { nowUs, sleep } from "./clock.js";
import { prewarm } from "./prewarm.js";
import { probeTokensPerWord } from "./probe.js";
import { itlRowsFor, traceRowFor, type ItlRow } from "./rows.js";
import { Semaphore } from "./semaphore.js";
import { promptFromTokens } from "./vocabulary.js";

export const DEFAULT_MAX_CONCURRENCY = 256;
export const DEFAULT_TIMEOUT_MS = 300_000;

export interface ObserveOptions extends ClientOptions {
  /** Stream responses (off with `--no-streaming`; `recordItl` forces it on). */
  streaming: boolean;
  maxConcurrency: number;
  warmupRequests: number;
  /** Keep every chunk time of the recorded rows (forces streaming). */
  recordItl: boolean;
  /** Skips the tokens-per-word probe when given. */
  tokensPerWord?: number;
  /** Unrecorded fixed requests for this long before the workload (0 = none). */
  prewarmMs?: number;
  /** Stops dispatching and cancels the requests in flight (e.g. on Ctrl-C). */
  signal?: AbortSignal;
  logger?: Logger;
  /** Called every `progressIntervalMs` while requests run, and once at the end. */
  onProgress?: (p: ObserveProgress) => void;
  progressIntervalMs?: number;
}

export interface ObserveProgress {
  dispatched: number;
  completed: number;
  ok: number;
  errors: number;
  timeouts: number;
  inFlight: number;
  elapsedS: number;
}

export interface ObserveResult {
  /** Recorded rows in request_id order (warm-up requests are absent). */
  records: TraceRecord[];
  /** Chunk times of the recorded `ok` rows when `recordItl` is on. */
  itl: ItlRow[];
  tokensPerWord: number;
  /** Requests sent, warm-up included. */
  dispatched: number;
  /** Unix-epoch µs when dispatching began and when the last response ended. */
  startUs: number;
  endUs: number;
  /** True when `signal` stopped the run early. */
  interrupted: boolean;
}

export async function observe(source: RequestSource, o: ObserveOptions): Promise<ObserveResult> {
  const log = o.logger ?? silentLogger;
  const client = new ObserveClient(o);
  const streaming = o.streaming || o.recordItl;
  const sem = new Semaphore(o.maxConcurrency);
  const records: TraceRecord[] = [];
  const itl: ItlRow[] = [];
  const progress: ObserveProgress = {
    dispatched: 0,
    completed: 0,
    ok: 0,
    errors: 0,
    timeouts: 0,
    inFlight: 0,
    elapsedS: 0,
  };
  const inFlight = new Set<Promise<void>>();
  let ticker: NodeJS.Timeout | undefined;
  try {
    const tokensPerWord = o.tokensPerWord ?? (await probeTokensPerWord(client, log, o.signal));
    if ((o.prewarmMs ?? 0) > 0) await prewarm(client, o.prewarmMs ?? 0, tokensPerWord, log, o.signal);

    const t0 = performance.now();
    const startUs = nowUs();
    const report = (): void => {
      progress.elapsedS = (performance.now() - t0) / 1000;
      progress.inFlight = inFlight.size;
      o.onProgress?.({ ...progress });
    };
    if (o.onProgress !== undefined) {
      ticker = setInterval(report, o.progressIntervalMs ?? 5000);
      ticker.unref();
    }

    for (let req = source.next(); req !== null && o.signal?.aborted !== true; req = source.next()) {
      if (!(await sleep(t0 + req.arrival / 1000 - performance.now(), o.signal))) break;
      if (!(await sem.acquire(o.signal))) break;
      const index = progress.dispatched++;
      const recorded = index >= o.warmupRequests;
      const prompt = promptFromTokens(req.tokens, req.inputLen, tokensPerWord);
      const planned = req;
      const task = client
        .send(
          {
            prompt,
            outputLen: req.outputLen,
            streaming,
            sloClass: req.sloClass,
            tenantId: req.tenantId,
            recordChunks: o.recordItl && recorded,
          },
          o.signal,
        )
        .then(({ xRequestId, outcome }) => {
          progress.completed++;
          if (outcome.status === "ok") progress.ok++;
          else if (outcome.status === "timeout") progress.timeouts++;
          else progress.errors++;
          if (outcome.status !== "ok") log.debug(`request ${index}: ${outcome.status}: ${outcome.errorMessage}`);
          if (!recorded) return;
          records.push(traceRowFor(planned, index, streaming, xRequestId, outcome));
          if (o.recordItl && outcome.status === "ok") for (const r of itlRowsFor(index, outcome)) itl.push(r);
        })
        .finally(() => {
          sem.release();
          inFlight.delete(task);
        });
      inFlight.add(task);
    }
    await Promise.all([...inFlight]);
    const endUs = nowUs();
    if (ticker !== undefined) clearInterval(ticker);
    ticker = undefined;
    report();
    records.sort((a, b) => a.request_id - b.request_id);
    itl.sort((a, b) => a.requestId - b.requestId || a.chunkIndex - b.chunkIndex);
    return {
      records,
      itl,
      tokensPerWord,
      dispatched: progress.dispatched,
      startUs,
      endUs,
      interrupted: o.signal?.aborted === true,
    };
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
    client.close();
  }
}

// `--prewarm-duration` (docs/observe.md "Flags"): before the workload, 4 concurrent loops send
// unrecorded fixed requests (256-token prompt, 64 output tokens, not streamed) until the
// duration has passed, so that the server's first measured requests do not pay warm-up costs.

import type { Logger } from "../util/log.js";
import type { ObserveClient } from "./client.js";
import { sleep } from "./clock.js";
import { wordCountFor, wordOf } from "./vocabulary.js";

export const PREWARM_CONCURRENCY = 4;
export const PREWARM_INPUT_TOKENS = 256;
export const PREWARM_OUTPUT_TOKENS = 64;
/** Pause after a failed prewarm request, so that an unreachable server is not hammered. */
const ERROR_BACKOFF_MS = 500;

export interface PrewarmStats {
  sent: number;
  errors: number;
}

export async function prewarm(
  client: ObserveClient,
  durationMs: number,
  tokensPerWord: number,
  log: Logger,
  signal?: AbortSignal,
): Promise<PrewarmStats> {
  const stats: PrewarmStats = { sent: 0, errors: 0 };
  if (!(durationMs > 0)) return stats;
  const words = wordCountFor(PREWARM_INPUT_TOKENS, tokensPerWord);
  const prompt = Array.from({ length: words }, (_, i) => wordOf(i)).join(" ");
  const deadline = Date.now() + durationMs;
  log.info(
    `prewarming for ${durationMs / 1000} s (${PREWARM_CONCURRENCY} concurrent, ${PREWARM_INPUT_TOKENS} input and ${PREWARM_OUTPUT_TOKENS} output tokens)`,
  );
  const worker = async (): Promise<void> => {
    while (Date.now() < deadline && signal?.aborted !== true) {
      const { outcome } = await client.send(
        { prompt, outputLen: PREWARM_OUTPUT_TOKENS, streaming: false, sloClass: "", tenantId: "", recordChunks: false },
        signal,
      );
      stats.sent++;
      if (outcome.status !== "ok") {
        stats.errors++;
        await sleep(Math.min(ERROR_BACKOFF_MS, Math.max(0, deadline - Date.now())), signal);
      }
    }
  };
  await Promise.all(Array.from({ length: PREWARM_CONCURRENCY }, worker));
  if (stats.sent > 0 && stats.errors === stats.sent)
    log.warn(`prewarm: all ${stats.sent} requests failed (is the server reachable?)`);
  else log.info(`prewarm: ${stats.sent} requests sent, ${stats.errors} failed`);
  return stats;
}

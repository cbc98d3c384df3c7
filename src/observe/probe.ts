// Tokens per vocabulary word of the server's tokenizer (docs/observe.md "Prompts"): one
// non-streamed request whose prompt is the 100 vocabulary words; its `prompt_tokens` / 100 is the
// ratio, or 1.0 when the request fails or the ratio is outside [1, 3].

import type { Logger } from "../util/log.js";
import type { ObserveClient } from "./client.js";
import { probePrompt, VOCABULARY } from "./vocabulary.js";

/** The probe waits at most this long (or the request timeout, if shorter). */
const PROBE_TIMEOUT_MS = 30_000;

export async function probeTokensPerWord(client: ObserveClient, log: Logger, signal?: AbortSignal): Promise<number> {
  const { outcome } = await client.send(
    { prompt: probePrompt(), outputLen: 1, streaming: false, sloClass: "", tenantId: "", recordChunks: false },
    signal,
    Math.min(PROBE_TIMEOUT_MS, client.options.timeoutMs),
  );
  if (outcome.status !== "ok") {
    log.warn(`tokens-per-word probe failed (${outcome.errorMessage || outcome.status}); using 1 token per word`);
    return 1;
  }
  if (outcome.promptTokens <= 0) {
    log.warn("tokens-per-word probe: the server reported no prompt_tokens; using 1 token per word");
    return 1;
  }
  const ratio = outcome.promptTokens / VOCABULARY.length;
  if (ratio < 1 || ratio > 3) {
    log.warn(`tokens-per-word probe: ratio ${ratio.toFixed(3)} is outside [1, 3]; using 1 token per word`);
    return 1;
  }
  log.info(
    `tokens-per-word probe: ${VOCABULARY.length} words are ${outcome.promptTokens} prompt tokens (${ratio.toFixed(3)} per word)`,
  );
  return ratio;
}

// The speculative-decoding metrics of a run (docs/speculative.md "Metrics"): acceptance as vLLM
// reports it, tokens per step, and TPOT next to the per-chunk ITL.

import { F_COMPLETED, type RequestLedger } from "../core/ledger.js";
import { meanMs, percentileMs, sortAsc } from "./stats.js";
import type { SpeculativeConfig } from "../speculative/config.js";
import type { SpecStats } from "../speculative/stats.js";

/** The cluster block's `speculative` key. */
export interface SpeculativeMetrics {
  method: string;
  num_speculative_tokens: number;
  /** Verifications: a request checking its proposals in one step. */
  num_drafts: number;
  num_draft_tokens: number;
  num_accepted_tokens: number;
  /** 1 + accepted per draft: tokens a verifying request emits per step (vLLM's mean acceptance length). */
  mean_acceptance_length: number;
  /** Accepted over proposed tokens. */
  draft_acceptance_rate: number;
  /** Per position i: drafts whose token i was accepted over drafts that proposed one there. */
  acceptance_rate_per_position: number[];
  /** Output tokens per step that emitted output. */
  tokens_per_step: number;
  /** Time per output token ((E2E − TTFT) / (output − 1)) over completed requests with output > 1. */
  tpot_mean_ms: number;
  tpot_p50_ms: number;
  tpot_p90_ms: number;
  tpot_p99_ms: number;
  /** Steps run without speculation because of disable_by_batch_size. */
  disabled_steps: number;
}

/** The metrics of the instances' counters (summed into `total`) and the user-level ledger. */
export function speculativeMetrics(
  cfg: SpeculativeConfig,
  total: SpecStats,
  ledger: RequestLedger,
): SpeculativeMetrics {
  const tpot = sortAsc(tpotValues(ledger));
  const perPos: number[] = [];
  for (let i = 0; i < cfg.k; i++)
    perPos.push(total.proposedAt[i]! > 0 ? total.acceptedAt[i]! / total.proposedAt[i]! : 0);
  return {
    method: cfg.method,
    num_speculative_tokens: cfg.k,
    num_drafts: total.drafts,
    num_draft_tokens: total.proposed,
    num_accepted_tokens: total.accepted,
    mean_acceptance_length: total.drafts > 0 ? 1 + total.accepted / total.drafts : 1,
    draft_acceptance_rate: total.proposed > 0 ? total.accepted / total.proposed : 0,
    acceptance_rate_per_position: perPos,
    tokens_per_step: total.outputSteps > 0 ? total.outputTokens / total.outputSteps : 0,
    tpot_mean_ms: meanMs(tpot),
    tpot_p50_ms: percentileMs(tpot, 50),
    tpot_p90_ms: percentileMs(tpot, 90),
    tpot_p99_ms: percentileMs(tpot, 99),
    disabled_steps: total.disabledSteps,
  };
}

/** (E2E − TTFT) / (O − 1) in ticks, per completed request with more than one output token. */
function tpotValues(ledger: RequestLedger): Float64Array {
  let n = 0;
  for (let i = 0; i < ledger.size; i++) if (counts(ledger, i)) n++;
  const out = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < ledger.size; i++) {
    if (counts(ledger, i)) out[k++] = (ledger.e2e[i]! - ledger.ttft[i]!) / (ledger.outputLen[i]! - 1);
  }
  return out;
}

function counts(ledger: RequestLedger, i: number): boolean {
  return (ledger.flags[i]! & F_COMPLETED) !== 0 && ledger.outputLen[i]! > 1 && ledger.ttft[i]! >= 0;
}

const f = (x: number, d: number): string => x.toFixed(d);

/** The `=== Speculative Decoding ===` stdout block; `itl` is the cluster's per-chunk ITL (mean, p99), ms. */
export function renderSpeculative(m: SpeculativeMetrics, itl: { mean: number; p99: number }): string {
  let s = "=== Speculative Decoding ===\n";
  s += `Method: ${m.method}, Speculative Tokens: ${m.num_speculative_tokens}\n`;
  s += `Drafts: ${m.num_drafts}, Draft Tokens: ${m.num_draft_tokens}, Accepted Tokens: ${m.num_accepted_tokens}\n`;
  s += `Mean Acceptance Length: ${f(m.mean_acceptance_length, 3)}, Draft Acceptance Rate: ${f(m.draft_acceptance_rate, 4)}\n`;
  s += `Acceptance Rate Per Position: [${m.acceptance_rate_per_position.map((x) => f(x, 4)).join(", ")}]\n`;
  s += `Tokens Per Step: ${f(m.tokens_per_step, 3)}\n`;
  s += `ITL (per chunk) mean: ${f(itl.mean, 4)} ms, p99: ${f(itl.p99, 4)} ms\n`;
  s += `TPOT (per token) mean: ${f(m.tpot_mean_ms, 4)} ms, p50: ${f(m.tpot_p50_ms, 4)} ms, p90: ${f(m.tpot_p90_ms, 4)} ms, p99: ${f(m.tpot_p99_ms, 4)} ms\n`;
  if (m.disabled_steps > 0) s += `Steps Without Speculation (disable_by_batch_size): ${m.disabled_steps}\n`;
  return s;
}

// Trace v2 replay (docs/calibration.md "Replay"): one stream seeded directly with the seed; group
// prefixes drawn first, then each row in file order. Today's layout (v3) draws each group's
// prefix_length tokens and counts input_tokens as the suffix; the older 22-column layout keeps its
// fixed 50-token prefix added on top of input_tokens, so old traces replay as they always did.

import { Rng } from "../../engine/rng.js";
import { UserError } from "../../util/errors.js";
import { drawnTokens, EMPTY_TOKENS, fillTokens, MAX_TOKENS_PER_BUFFER, newRequest } from "../gen/tokens.js";
import type { RequestSource, WorkloadRequest } from "../../core/workloadRequest.js";
import type { TraceRecord, TraceV2 } from "./traceV2.js";

const REPLAY_PREFIX_LENGTH = 50;

class ReplaySource implements RequestSource {
  private i = 0;
  constructor(
    private readonly records: readonly TraceRecord[],
    private readonly rng: Rng,
    private readonly prefixes: Map<string, Int32Array>,
    private readonly v3: boolean,
  ) {}
  get produced(): number {
    return this.i;
  }
  next(): WorkloadRequest | null {
    if (this.i >= this.records.length) return null;
    const r = this.records[this.i++]!;
    return buildRow(r, this.rng, this.prefixes, this.v3);
  }
}

/** Input tokens drawn for a row: the server's prompt count when recorded and no prefix applies. */
function suffixLength(r: TraceRecord, v3: boolean, prefix: Int32Array | null): number {
  return v3 && prefix === null && r.server_input_tokens > 0 ? r.server_input_tokens : r.input_tokens;
}

/** Arrival of a row: today's replay prefers the send time, the older layout the planned arrival. */
export function replayArrival(r: TraceRecord, v3: boolean): number {
  return v3 && r.send_time_us > 0 ? r.send_time_us : r.arrival_time_us;
}

function buildRow(r: TraceRecord, rng: Rng, prefixes: Map<string, Int32Array>, v3: boolean): WorkloadRequest {
  const prefix = r.prefix_group === "" ? null : (prefixes.get(r.prefix_group) ?? null);
  const p = prefix === null ? 0 : prefix.length;
  const n = suffixLength(r, v3, prefix);
  if (n < 0 || r.output_tokens < 0) {
    throw new UserError(`trace request ${r.request_id}: negative token count (${n}, ${r.output_tokens})`);
  }
  if (p + n + r.output_tokens > MAX_TOKENS_PER_BUFFER) {
    throw new UserError(`trace request ${r.request_id}: too many tokens`);
  }
  // Input then output IDs, one run of draws after the prefix (drawn up front).
  const tokens = drawnTokens(rng, prefix ?? EMPTY_TOKENS, n + r.output_tokens);
  const req = newRequest(
    { tenantId: r.tenant_id, sloClass: r.slo_class, model: v3 ? r.model : "", adapter: r.adapter },
    replayArrival(r, v3),
    tokens,
    p + n,
    r.output_tokens,
    r.streaming,
    r.session_id,
    r.round_index,
    r.reason_ratio,
    r.text_tokens,
    r.image_tokens,
    r.audio_tokens,
    r.video_tokens,
  );
  req.id = `request_${r.request_id}`;
  req.sloTargetUs = r.slo_target_us;
  return req;
}

/**
 * Replays a loaded trace. The stream is lazy when rows are already in arrival order; otherwise
 * requests are generated in file order (same draws) and stably sorted by arrival, since a
 * RequestSource must be non-decreasing in time.
 */
export function traceReplaySource(trace: TraceV2, seed: bigint): RequestSource {
  const records = trace.records;
  if (records.length === 0) throw new UserError("empty trace");
  const rng = new Rng(seed);
  const v3 = trace.layout === "v3";
  const prefixes = new Map<string, Int32Array>();
  for (const r of records) {
    if (r.prefix_group === "" || prefixes.has(r.prefix_group)) continue;
    const len = v3 ? r.prefix_length : REPLAY_PREFIX_LENGTH;
    if (len <= 0) continue;
    const tokens = new Int32Array(len);
    fillTokens(rng, tokens, 0, len);
    prefixes.set(r.prefix_group, tokens);
  }
  let sorted = true;
  for (let i = 1; i < records.length; i++) {
    if (replayArrival(records[i]!, v3) < replayArrival(records[i - 1]!, v3)) {
      sorted = false;
      break;
    }
  }
  if (sorted) return new ReplaySource(records, rng, prefixes, v3);
  const all = records.map((r) => buildRow(r, rng, prefixes, v3));
  all.sort((a, b) => a.arrival - b.arrival); // Array.prototype.sort is stable.
  let i = 0;
  return {
    get produced() {
      return i;
    },
    next: () => (i < all.length ? all[i++]! : null),
  };
}

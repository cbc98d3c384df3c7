// Trace v2 replay (workload.md §7.3): one stream seeded directly with the seed; 50-token
// group prefixes drawn first (added on top of input_tokens, §9 Q12), then each row in file order.

import { Rng } from "../../engine/rng.js";
import { UserError } from "../../util/errors.js";
import { fillTokens, MAX_TOKENS_PER_BUFFER, newRequest } from "../gen/tokens.js";
import type { RequestSource, WorkloadRequest } from "../request.js";
import type { TraceRecord, TraceV2 } from "./traceV2.js";

const REPLAY_PREFIX_LENGTH = 50;

class ReplaySource implements RequestSource {
  private i = 0;
  constructor(
    private readonly records: readonly TraceRecord[],
    private readonly rng: Rng,
    private readonly prefixes: Map<string, Int32Array>,
  ) {}
  get produced(): number {
    return this.i;
  }
  next(): WorkloadRequest | null {
    if (this.i >= this.records.length) return null;
    const r = this.records[this.i++]!;
    return buildRow(r, this.rng, this.prefixes);
  }
}

function buildRow(r: TraceRecord, rng: Rng, prefixes: Map<string, Int32Array>): WorkloadRequest {
  const prefix = r.prefix_group === "" ? null : prefixes.get(r.prefix_group)!;
  const p = prefix === null ? 0 : prefix.length;
  if (r.input_tokens < 0 || r.output_tokens < 0) {
    throw new UserError(`trace request ${r.request_id}: negative token count (${r.input_tokens}, ${r.output_tokens})`);
  }
  if (p + r.input_tokens + r.output_tokens > MAX_TOKENS_PER_BUFFER) {
    throw new UserError(`trace request ${r.request_id}: too many tokens`);
  }
  const tokens = new Int32Array(p + r.input_tokens + r.output_tokens);
  // Input IDs are drawn, then the prefix is prepended (it was drawn up front).
  fillTokens(rng, tokens, p, p + r.input_tokens);
  if (prefix !== null) tokens.set(prefix, 0);
  fillTokens(rng, tokens, p + r.input_tokens, tokens.length);
  const req = newRequest(
    { tenantId: r.tenant_id, sloClass: r.slo_class, model: "" },
    r.arrival_time_us,
    tokens,
    p + r.input_tokens,
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
  const prefixes = new Map<string, Int32Array>();
  for (const r of records) {
    if (r.prefix_group === "" || prefixes.has(r.prefix_group)) continue;
    const tokens = new Int32Array(REPLAY_PREFIX_LENGTH);
    fillTokens(rng, tokens, 0, REPLAY_PREFIX_LENGTH);
    prefixes.set(r.prefix_group, tokens);
  }
  let sorted = true;
  for (let i = 1; i < records.length; i++) {
    if (records[i]!.arrival_time_us < records[i - 1]!.arrival_time_us) {
      sorted = false;
      break;
    }
  }
  if (sorted) return new ReplaySource(records, rng, prefixes);
  const all = records.map((r) => buildRow(r, rng, prefixes));
  all.sort((a, b) => a.arrival - b.arrival); // Array.prototype.sort is stable.
  let i = 0;
  return {
    get produced() {
      return i;
    },
    next: () => (i < all.length ? all[i++]! : null),
  };
}

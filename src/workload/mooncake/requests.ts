// Trace lines → WorkloadRequests, one at a time in arrival order (docs/traces.md): lengths and
// arrivals as the trace writes them, prompt content from the hash ids (./content.ts), output
// tokens drawn from one seeded stream in arrival order.

import { RUN_WORDS, Rng, deriveStreamSeed } from "../../engine/rng.js";
import { TokenSeq } from "../../core/tokenSeq.js";
import type { SeqRequest } from "../../core/workloadRequest.js";
import { EMPTY_TOKENS, newRequest, type RequestMeta } from "../gen/tokens.js";
import { firstPrivateIds, writeIdRun } from "./content.js";
import type { MooncakeTrace } from "./trace.js";

const META: RequestMeta = { tenantId: "", sloClass: "", model: "" };

/** Line indices in arrival order (file order among equal timestamps). */
export function arrivalOrder(t: MooncakeTrace): Int32Array {
  const order = new Int32Array(t.count);
  let sorted = true;
  for (let i = 0; i < t.count; i++) {
    order[i] = i;
    if (i > 0 && t.timestampMs[i]! < t.timestampMs[i - 1]!) sorted = false;
  }
  if (sorted) return order;
  const ts = t.timestampMs;
  return Int32Array.from(Array.from(order).sort((a, b) => ts[a]! - ts[b]! || a - b));
}

/** Makes the request of trace line i. */
export class TraceRequests {
  private readonly firstPrivate: Int32Array;
  private readonly rng: Rng;
  private readonly t0: number;

  constructor(
    readonly trace: MooncakeTrace,
    seed: bigint,
    /** Factor applied to the gaps between timestamps (0.5 replays twice as fast). */
    private readonly timeScale: number,
    /** Client deadline after each arrival, ticks (0 = none). */
    private readonly timeoutUs: number,
  ) {
    this.firstPrivate = firstPrivateIds(trace);
    this.rng = new Rng(deriveStreamSeed(seed, "mooncake-output"));
    let t0 = Infinity;
    for (const ts of trace.timestampMs) if (ts < t0) t0 = ts;
    this.t0 = t0;
  }

  /** Arrival of line i in ticks after the trace's first timestamp. */
  arrival(i: number): number {
    return Math.round((this.trace.timestampMs[i]! - this.t0) * 1000 * this.timeScale);
  }

  /** The request of line i, arriving at `arrival`, numbered n (`request_<n>`). */
  make(i: number, arrival: number, n: number): SeqRequest {
    const t = this.trace;
    const input = t.inputLen[i]!;
    const output = t.outputLen[i]!;
    const req = newRequest(
      META,
      arrival,
      this.tokens(i, input, output),
      input,
      output,
      false,
      t.session?.[i] ?? "",
      t.turn?.[i] ?? 0,
      0,
      0,
      0,
      0,
      0,
    );
    req.setIdNumber(n);
    if (this.timeoutUs > 0) req.deadline = arrival + this.timeoutUs;
    return req;
  }

  /** One run per hash id (the last one partial), then the output's draws. */
  private tokens(i: number, input: number, output: number): TokenSeq {
    const t = this.trace;
    const a = t.idStart[i]!;
    const k = t.idStart[i + 1]! - a;
    const length = input + output;
    if (k === 0) {
      // No hash ids: the whole prompt is the request's own draws.
      const runs = new Int32Array(RUN_WORDS);
      this.rng.recordRun(runs, 0, length);
      return new TokenSeq(length, EMPTY_TOKENS, 0, 0, 0, 0, 0, runs, 0, 1, 0);
    }
    const runs = new Int32Array((k + 1) * RUN_WORDS);
    const bs = t.blockSize;
    for (let j = 0; j < k; j++) writeIdRun(runs, j * RUN_WORDS, t.ids[a + j]!, j < k - 1 ? bs : input - (k - 1) * bs);
    this.rng.recordRun(runs, k * RUN_WORDS, output);
    const fp = this.firstPrivate[i]!;
    return new TokenSeq(length, EMPTY_TOKENS, 0, 0, 0, 0, 0, runs, 0, k + 1, fp < k ? fp * bs : input);
  }
}

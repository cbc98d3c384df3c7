// Per-client lazy request generators (docs/behavior.md "Tokens, prefixes and sessions"). Each owns
// the client's private random stream and draws in the specified order; a stream exposes the arrival
// of its next request (`head`) so the merge can interleave clients without buffering tokens.
// Ordinary clients defer the non-IAT draws of an event until it is emitted, which is safe because
// nothing else is drawn from that stream in between.

import { RUN_WORDS, type Rng } from "../../engine/rng.js";
import { TokenSeq } from "../../core/tokenSeq.js";
import { UserError } from "../../util/errors.js";
import type { SeqRequest } from "../../core/workloadRequest.js";
import type { ArrivalSampler } from "../samplers/arrival.js";
import type { LengthSampler, ReasonRatioSampler } from "../samplers/length.js";
import { drawnTokens, MAX_SAMPLED_LENGTH, MAX_TOKENS_PER_BUFFER, newRequest, type RequestMeta } from "./tokens.js";
import type { ActiveWindows } from "./windows.js";

export interface StreamCommon extends RequestMeta {
  /** `client "<id>"`, used in error messages. */
  readonly label: string;
  readonly rng: Rng;
  readonly arrival: ArrivalSampler;
  /** Per-client cap K in requests (Infinity = none). */
  readonly cap: number;
  /** Horizon in ticks (Infinity = unbounded). */
  readonly horizon: number;
}

export interface Modality {
  readonly count: LengthSampler;
  readonly item: LengthSampler;
}
export interface MultimodalSamplers {
  readonly text: LengthSampler | null;
  readonly image: Modality | null;
  readonly audio: Modality | null;
  readonly video: Modality | null;
}

export interface OrdinaryConfig extends StreamCommon {
  readonly input: LengthSampler;
  readonly output: LengthSampler;
  readonly prefix: Int32Array;
  readonly streaming: boolean;
  readonly windows: ActiveWindows | null;
  readonly multimodal: MultimodalSamplers | null;
}

export interface SessionConfig extends StreamCommon {
  readonly input: LengthSampler;
  readonly output: LengthSampler;
  /** Group prefix tokens put before every round's input (empty without a group). */
  readonly prefix: Int32Array;
  /** Lifecycle windows gating session starts (null = always active). */
  readonly windows: ActiveWindows | null;
  readonly rounds: number;
  readonly thinkTime: number;
  readonly accumulate: boolean;
  readonly reason: ReasonRatioSampler | null;
}

export abstract class ClientStream {
  /** Arrival of the next request; meaningful only while !done. */
  head = 0;
  done = false;
  /** Emits the request at `head` and advances. */
  abstract take(): SeqRequest;
}

function lengthError(label: string, what: string, n: number): UserError {
  return new UserError(
    `Failed to generate workload: ${label} ${what}: sampled length ${n} exceeds the supported maximum of ${MAX_SAMPLED_LENGTH}`,
  );
}

function checked(label: string, what: string, n: number): number {
  if (n > MAX_SAMPLED_LENGTH) throw lengthError(label, what, n);
  return n;
}

/** Standard and multimodal clients: one request per kept arrival. */
export class OrdinaryStream extends ClientStream {
  private t = 0;
  private count = 0;

  constructor(private readonly cfg: OrdinaryConfig) {
    super();
    this.advance();
  }

  private advance(): void {
    const cfg = this.cfg;
    const windows = cfg.windows;
    for (;;) {
      if (this.count >= cfg.cap) break;
      this.t += cfg.arrival.next(cfg.rng);
      if (!(this.t < cfg.horizon)) break;
      if (windows !== null) {
        if (this.t >= windows.lastEnd) break; // Nothing can be kept any more (docs/behavior.md#w7).
        if (!windows.contains(this.t)) continue;
      }
      this.head = this.t;
      return;
    }
    this.done = true;
  }

  take(): SeqRequest {
    const req = this.cfg.multimodal === null ? this.buildStandard() : this.buildMultimodal(this.cfg.multimodal);
    this.count++;
    this.advance();
    return req;
  }

  private buildStandard(): SeqRequest {
    const cfg = this.cfg;
    const rng = cfg.rng;
    const inLen = checked(cfg.label, "input distribution", cfg.input.sample(rng));
    const outLen = checked(cfg.label, "output distribution", cfg.output.sample(rng));
    // Input then output IDs: one run of draws, which no other request holds (sessions, whose
    // rounds share draws, are built elsewhere).
    const tokens = drawnTokens(rng, cfg.prefix, inLen + outLen, true);
    return newRequest(cfg, this.head, tokens, cfg.prefix.length + inLen, outLen, cfg.streaming, "", 0, 0, 0, 0, 0, 0);
  }

  private modalityTotal(m: Modality | null, what: string): number {
    if (m === null) return 0;
    const rng = this.cfg.rng;
    const count = checked(this.cfg.label, `multimodal: ${what} count distribution`, m.count.sample(rng));
    let sum = 0;
    for (let i = 0; i < count; i++)
      sum += checked(this.cfg.label, `multimodal: ${what} distribution`, m.item.sample(rng));
    return sum;
  }

  private buildMultimodal(mm: MultimodalSamplers): SeqRequest {
    const cfg = this.cfg;
    const rng = cfg.rng;
    const text = mm.text === null ? 0 : checked(cfg.label, "multimodal: text distribution", mm.text.sample(rng));
    const image = this.modalityTotal(mm.image, "image");
    const audio = this.modalityTotal(mm.audio, "audio");
    const video = this.modalityTotal(mm.video, "video");
    let total = text + image + audio + video;
    if (total === 0) total = 1;
    if (total > MAX_TOKENS_PER_BUFFER) throw lengthError(cfg.label, "multimodal input", total);
    // Input IDs are drawn before the output length is sampled: two runs of draws.
    const s0 = rng.word(0);
    const s1 = rng.word(1);
    const s2 = rng.word(2);
    const s3 = rng.word(3);
    rng.skip(total);
    const outLen = checked(cfg.label, "output distribution", cfg.output.sample(rng));
    const out = new Int32Array(RUN_WORDS);
    rng.recordRun(out, 0, outLen);
    const p = cfg.prefix.length;
    const tokens = new TokenSeq(p + total + outLen, cfg.prefix, total, s0, s1, s2, s3, out, 0, 1, p);
    return newRequest(cfg, this.head, tokens, p + total, outLen, cfg.streaming, "", 0, 0, text, image, audio, video);
  }
}

/** Pending session rounds ordered by (arrival, generation sequence). */
class PendingRounds {
  private readonly reqs: SeqRequest[] = [];
  private readonly seqs: number[] = [];

  get size(): number {
    return this.reqs.length;
  }
  peekArrival(): number {
    return this.reqs[0]!.arrival;
  }
  private less(i: number, j: number): boolean {
    const a = this.reqs[i]!.arrival;
    const b = this.reqs[j]!.arrival;
    return a < b || (a === b && this.seqs[i]! < this.seqs[j]!);
  }
  private swap(i: number, j: number): void {
    const r = this.reqs[i]!;
    this.reqs[i] = this.reqs[j]!;
    this.reqs[j] = r;
    const s = this.seqs[i]!;
    this.seqs[i] = this.seqs[j]!;
    this.seqs[j] = s;
  }
  push(req: SeqRequest, seq: number): void {
    this.reqs.push(req);
    this.seqs.push(seq);
    let i = this.reqs.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }
  pop(): SeqRequest {
    const top = this.reqs[0]!;
    const last = this.reqs.length - 1;
    this.swap(0, last);
    this.reqs.pop();
    this.seqs.pop();
    let i = 0;
    const n = this.reqs.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.less(r, l) ? r : l;
      if (!this.less(m, i)) break;
      this.swap(i, m);
      i = m;
    }
    return top;
  }
}

/**
 * Multi-turn clients (docs/behavior.md "Tokens, prefixes and sessions"): the arrival process spaces
 * session starts; each session emits all its rounds at once (their draws are interleaved in the
 * stream). Rounds wait in a heap until no later session can produce an earlier request.
 *
 * Unlike the reference's seed-era generator (docs/behavior.md#w5), and like BLIS today, sessions
 * honor the client's prefix group (every round starts with the group's tokens, so system prompts
 * are shared across rounds and users) and its lifecycle windows (a start outside every window is
 * dropped like an ordinary arrival; rounds of a started session are kept even past the window).
 */
export class SessionStream extends ClientStream {
  private readonly pending = new PendingRounds();
  private t = 0;
  private nextStart = 0;
  private more = true;
  private count = 0;
  private seq = 0;
  /** `head` is the start of a session not generated yet. */
  private deferred = false;
  /** How far before its start a session's rounds can arrive (negative think times). */
  private readonly earliestOffset: number;
  private readonly roundIn: number[] = [];
  private readonly roundOut: number[] = [];
  private readonly roundRatio: number[] = [];

  constructor(private readonly cfg: SessionConfig) {
    super();
    this.earliestOffset = Math.min(0, (cfg.rounds - 1) * cfg.thinkTime);
    if (cfg.rounds <= 0) {
      // Empty sessions produce nothing; stop at once (docs/behavior.md#w7).
      this.more = false;
    } else {
      this.drawNextStart();
    }
    this.refresh();
  }

  private drawNextStart(): void {
    const cfg = this.cfg;
    if (this.count >= cfg.cap) {
      this.more = false;
      return;
    }
    const windows = cfg.windows;
    for (;;) {
      this.t += cfg.arrival.next(cfg.rng);
      if (!(this.t < cfg.horizon) || (windows !== null && this.t >= windows.lastEnd)) {
        this.more = false;
        return;
      }
      if (windows === null || windows.contains(this.t)) break;
    }
    this.nextStart = this.t;
  }

  /**
   * Sets `head`. With non-negative think times round 0 of the next session arrives exactly at
   * its start and precedes everything later, so the session is generated only when taken.
   */
  private refresh(): void {
    for (;;) {
      if (this.pending.size > 0 && (!this.more || this.pending.peekArrival() <= this.nextStart + this.earliestOffset)) {
        this.head = this.pending.peekArrival();
        return;
      }
      if (!this.more) {
        this.done = true;
        return;
      }
      if (this.earliestOffset === 0) {
        this.head = this.nextStart;
        this.deferred = true;
        return;
      }
      this.realizeNext();
    }
  }

  private realizeNext(): void {
    this.generateSession(this.nextStart);
    this.count += this.cfg.rounds;
    this.drawNextStart();
  }

  take(): SeqRequest {
    if (this.deferred) {
      this.deferred = false;
      this.realizeNext();
    }
    const req = this.pending.pop();
    this.refresh();
    return req;
  }

  /**
   * A session's token layout. Accumulate: prefix ++ N_0 ++ O_0 ++ N_1 ++ O_1 …, round r being the
   * leading part up to O_r, so the prefix is stored once and shared by every round. Otherwise:
   * prefix ++ N_r ++ O_r per round. Each N_r ++ O_r is one run of draws, recorded in one array
   * shared by the rounds. The prefix comes from the workload stream, so the client's draws are the
   * same with or without a group.
   */
  private generateSession(start: number): void {
    const cfg = this.cfg;
    const rng = cfg.rng;
    const sessionId = "sess_" + rng.int63().toString();
    const R = cfg.rounds;
    const p = cfg.prefix.length;
    const roundPrefix = cfg.accumulate ? 0 : p;
    // Tokens the session would take back to back (the limit of one session buffer).
    let used = cfg.accumulate ? p : 0;
    const runs = new Int32Array(R * RUN_WORDS);
    this.roundIn.length = 0;
    this.roundOut.length = 0;
    this.roundRatio.length = 0;
    for (let r = 0; r < R; r++) {
      const inLen = checked(cfg.label, "input distribution", cfg.input.sample(rng));
      const outLen = checked(cfg.label, "output distribution", cfg.output.sample(rng));
      used += roundPrefix + inLen + outLen;
      if (used > MAX_TOKENS_PER_BUFFER) {
        throw new UserError(
          `Failed to generate workload: ${cfg.label}: a session needs more than ${MAX_TOKENS_PER_BUFFER} tokens`,
        );
      }
      rng.recordRun(runs, r * RUN_WORDS, inLen + outLen);
      this.roundIn.push(inLen);
      this.roundOut.push(outLen);
      this.roundRatio.push(cfg.reason === null ? 0 : cfg.reason.sample(rng));
    }
    let context = p;
    let priorOut = 0;
    for (let r = 0; r < R; r++) {
      const inLen = this.roundIn[r]!;
      const outLen = this.roundOut[r]!;
      context = (cfg.accumulate ? context : p) + inLen + outLen;
      const tokens = new TokenSeq(
        context,
        cfg.prefix,
        0,
        0,
        0,
        0,
        0,
        runs,
        cfg.accumulate ? 0 : r,
        cfg.accumulate ? r + 1 : 1,
      );
      const arrival = start + r * cfg.thinkTime + priorOut;
      const req = newRequest(
        cfg,
        arrival,
        tokens,
        context - outLen,
        outLen,
        false,
        sessionId,
        r,
        this.roundRatio[r]!,
        0,
        0,
        0,
        0,
      );
      this.pending.push(req, this.seq++);
      priorOut += outLen;
    }
  }
}

/**
 * A client stream whose requests carry a client deadline `timeout` ticks after their arrival
 * (docs/behavior.md "Client timeouts") and a TTFT target for the gateway's `slo-deadline` order
 * (docs/gateway.md "Dispatch"); 0 = none. Mirrors the inner stream's head and done.
 */
export class ClientLimitsStream extends ClientStream {
  constructor(
    private readonly inner: ClientStream,
    private readonly timeout: number,
    private readonly sloTargetUs: number,
  ) {
    super();
    this.head = inner.head;
    this.done = inner.done;
  }
  take(): SeqRequest {
    const r = this.inner.take();
    this.head = this.inner.head;
    this.done = this.inner.done;
    if (this.timeout > 0) r.deadline = r.arrival + this.timeout;
    if (this.sloTargetUs > 0) r.sloTargetUs = this.sloTargetUs;
    return r;
  }
}

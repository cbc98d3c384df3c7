// Closed-loop sessions (docs/behavior.md "Closed-loop load"): what a session needs to make its next
// round when the previous one ends, and its state.

import type { Rng } from "../../engine/rng.js";
import type { LengthSampler } from "../samplers/length.js";
import type { RequestMeta } from "../gen/tokens.js";

export const ACTIVE = 0;
export const COMPLETED = 1;
export const CANCELLED = 2;
export const BUDGET_EXHAUSTED = 3;
export const HORIZON_INTERRUPTED = 4;
export type SessionStatus =
  typeof ACTIVE | typeof COMPLETED | typeof CANCELLED | typeof BUDGET_EXHAUSTED | typeof HORIZON_INTERRUPTED;

/** One session of a closed-loop multi-turn client or one virtual user. */
export interface Blueprint extends RequestMeta {
  readonly sessionId: string;
  /** `client "<id>"`, for error logs. */
  readonly label: string;
  /** Rounds in all (Infinity for virtual users). */
  readonly maxRounds: number;
  readonly accumulate: boolean;
  /** Ticks between the end of a round and the arrival of the next. */
  readonly thinkTime: number;
  /** Think time drawn per round instead of `thinkTime` (closed-loop replay); absent or null = constant. */
  readonly thinkSampler?: ((rng: Rng) => number) | null;
  /** Client deadline of each round, ticks after its arrival (0 = none). */
  readonly timeout: number;
  readonly input: LengthSampler;
  readonly output: LengthSampler;
  /** Group prefix tokens at the start of every round's input. */
  readonly prefix: Int32Array;
  /** The session's private stream: lengths and tokens of its follow-ups. */
  readonly rng: Rng;
  status: SessionStatus;
  /** Round index of the request in flight. */
  round: number;
  /** Tokens of the accumulated context after the prefix. */
  contextLen: number;
  /**
   * Accumulated context after the prefix, as runs of draws (RUN_WORDS int32 each: state words and
   * length); null until the first follow-up of an accumulating session.
   */
  context: Int32Array | null;
  contextRuns: number;
  /** Draw state and new-input length of the round in flight (accumulate: the buffer's last run). */
  readonly lastRun: Int32Array;
  lastNewInput: number;
}

// A Mooncake-style request trace held in typed arrays (docs/traces.md): one entry per JSONL line,
// the hash ids of all requests in one array, so a million long-context requests cost a few
// hundred bytes each until they are turned into requests one at a time.

/** Tokens one hash id stands for in the published Mooncake traces. */
export const DEFAULT_TRACE_BLOCK_SIZE = 512;

export interface MooncakeTrace {
  /** The trace file, for messages. */
  readonly file: string;
  /** Number of requests (lines with a request). */
  readonly count: number;
  /** Tokens per hash id. */
  readonly blockSize: number;
  /** Per request: its timestamp as written (milliseconds). */
  readonly timestampMs: Float64Array;
  readonly inputLen: Int32Array;
  readonly outputLen: Int32Array;
  /** Request i's hash ids are ids[idStart[i] .. idStart[i + 1]). */
  readonly idStart: Int32Array;
  readonly ids: Float64Array;
  /** Per request: its line in the file (1-based). */
  readonly line: Int32Array;
  /** Per request: session_id as text ("" = none); null when no line has one. */
  readonly session: string[] | null;
  /** Per request: turn (0 when absent); null when no line has one. */
  readonly turn: Int32Array | null;
}

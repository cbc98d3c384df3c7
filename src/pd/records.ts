// Per-parent bookkeeping of a disaggregated request (docs/prefill-decode.md "Disaggregated path").
import type { Request } from "../core/request.js";

export const PENDING = 0;
/** Its decode completed: the user request is served. */
export const DONE = 1;
/** Its prefill sub-request was dropped as unservable on the prefill instance. */
export const DROPPED_PREFILL = 2;
/** The decode instance could not hold its KV at transfer start. */
export const DROPPED_DECODE = 3;
/** No prefill instance was routable. */
export const REJECTED = 4;
export type Outcome = typeof PENDING | typeof DONE | typeof DROPPED_PREFILL | typeof DROPPED_DECODE | typeof REJECTED;

/** One disaggregated user request; times are ticks, -1 until they happen. */
export class ParentRecord {
  outcome: Outcome = PENDING;
  prefillInstance = -1;
  prefillEnqueue = -1;
  prefillComplete = -1;
  transferStart = -1;
  transferComplete = -1;
  decodeEnqueue = -1;
  completion = -1;
  /** Prefill and decode ran on the same (shared) instance: the KV stayed where it was. */
  local = false;
  /** The live sub-requests (null once they are done with). */
  prefill: Request | null = null;
  decode: Request | null = null;
  /** The prefill's block hashes, kept from its completion for the decode sub-request (same tokens). */
  hashes: Float64Array | null = null;
  /** User-level values (projection), set at decode completion. */
  prefillSched = -1;
  ttft = -1;
  e2e = -1;
  itl = 0;

  constructor(
    readonly parent: Request,
    /** Chosen at routing, fixed from then on. */
    readonly decodeInstance: number,
    /** ceil(prompt / block size): the KV the transfer moves. */
    readonly numKvBlocks: number,
  ) {}
}

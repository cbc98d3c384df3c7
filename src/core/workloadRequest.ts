// A generated request as the workload layer hands it to the cluster.

import { TokenSeq } from "./tokenSeq.js";

export type SloClass = "" | "critical" | "standard" | "sheddable" | "batch" | "background";

export interface WorkloadRequest {
  /** `request_<n>`, assigned in arrival order. */
  id: string;
  /** n when the ID is `request_<n>` (n written without leading zeros), else -1. */
  readonly idNum: number;
  /** Arrival time T0 in ticks (microseconds). */
  arrival: number;
  /** How the token IDs (input followed by output, length inputLen + outputLen) are produced. */
  tokenSeq: TokenSeq;
  /** The token IDs themselves, made on each read: for callers outside the simulation loop. */
  readonly tokens: Int32Array;
  inputLen: number;
  outputLen: number;
  sloClass: string;
  tenantId: string;
  model: string;
  streaming: boolean;
  sessionId: string;
  roundIndex: number;
  reasonRatio: number;
  textTokens: number;
  imageTokens: number;
  audioTokens: number;
  videoTokens: number;
  /** Client deadline: the request times out on its instance at this tick (0 = none). */
  deadline: number;
  /** TTFT target of `slo-deadline` gateway dispatch, ticks (0 = the class's target). */
  sloTargetUs: number;
  /** LoRA adapter ID ("" = the base model; docs/lora.md). */
  adapter?: string;
}

const ID_PREFIX = "request_";

/** n of a `request_<n>` ID with n a non-negative integer without leading zeros, else -1. */
export function requestIdNumber(id: string): number {
  if (!id.startsWith(ID_PREFIX)) return -1;
  const digits = id.slice(ID_PREFIX.length);
  const n = Number(digits);
  return digits !== "" && Number.isSafeInteger(n) && n >= 0 && String(n) === digits ? n : -1;
}

/** The ID text of a request: `request_<idNum>`, or idText when idNum < 0. */
export function requestIdText(idNum: number, idText: string): string {
  return idNum >= 0 ? ID_PREFIX + idNum : idText;
}

/**
 * The one shape of every WorkloadRequest (monomorphic field access in the cluster). A numbered ID
 * is kept as its number: no string per request.
 */
export class SeqRequest implements WorkloadRequest {
  idNum = -1;
  /** The ID when it is not `request_<n>`. */
  idText = "";
  deadline = 0;
  sloTargetUs = 0;
  adapter = "";
  constructor(
    public arrival: number,
    public tokenSeq: TokenSeq,
    public inputLen: number,
    public outputLen: number,
    public sloClass: string,
    public tenantId: string,
    public model: string,
    public streaming: boolean,
    public sessionId: string,
    public roundIndex: number,
    public reasonRatio: number,
    public textTokens: number,
    public imageTokens: number,
    public audioTokens: number,
    public videoTokens: number,
  ) {}

  get id(): string {
    return requestIdText(this.idNum, this.idText);
  }
  set id(v: string) {
    this.idNum = requestIdNumber(v);
    this.idText = this.idNum >= 0 ? "" : v;
  }

  /** Sets the ID `request_<n>`. */
  setIdNumber(n: number): void {
    this.idNum = n;
    this.idText = "";
  }

  /** A getter (copies made by spreading lose it): the IDs are drawn anew on each read. */
  get tokens(): Int32Array {
    return this.tokenSeq.toArray();
  }
}

/**
 * A stream of requests in non-decreasing arrival order. Generation is lazy so that a run
 * never holds more requests than it needs at once.
 */
export interface RequestSource {
  next(): WorkloadRequest | null;
  /** Number of requests produced so far. */
  readonly produced: number;
}

/** Source over an in-memory list (tests, small traces). */
export class ArrayRequestSource implements RequestSource {
  private i = 0;
  constructor(private readonly items: readonly WorkloadRequest[]) {}
  get produced(): number {
    return this.i;
  }
  next(): WorkloadRequest | null {
    return this.i < this.items.length ? this.items[this.i++]! : null;
  }
}

/** A request of explicit token IDs. */
export function makeRequest(
  id: string,
  arrival: number,
  input: ArrayLike<number>,
  output: ArrayLike<number>,
  extra: Partial<Omit<WorkloadRequest, "tokens" | "idNum">> = {},
): WorkloadRequest {
  const tokens = new Int32Array(input.length + output.length);
  tokens.set(input, 0);
  tokens.set(output, input.length);
  const r = new SeqRequest(
    arrival,
    TokenSeq.of(tokens),
    input.length,
    output.length,
    "",
    "",
    "",
    false,
    "",
    0,
    0,
    0,
    0,
    0,
    0,
  );
  r.id = id;
  return Object.assign(r, extra);
}

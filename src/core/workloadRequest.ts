// A generated request as the workload layer hands it to the cluster.

export type SloClass = "" | "critical" | "standard" | "sheddable" | "batch" | "background";

export interface WorkloadRequest {
  /** `request_<n>`, assigned in arrival order. */
  id: string;
  /** Arrival time T0 in ticks (microseconds). */
  arrival: number;
  /** Input token IDs followed by output token IDs (length inputLen + outputLen). */
  tokens: Int32Array;
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
}

/**
 * A stream of requests in non-decreasing arrival order. Generation is lazy so that a run
 * never holds more token arrays than it needs at once.
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

export function makeRequest(
  id: string,
  arrival: number,
  input: ArrayLike<number>,
  output: ArrayLike<number>,
  extra: Partial<WorkloadRequest> = {},
): WorkloadRequest {
  const tokens = new Int32Array(input.length + output.length);
  tokens.set(input as ArrayLike<number>, 0);
  tokens.set(output as ArrayLike<number>, input.length);
  return {
    id,
    arrival,
    tokens,
    inputLen: input.length,
    outputLen: output.length,
    sloClass: "",
    tenantId: "",
    model: "",
    streaming: false,
    sessionId: "",
    roundIndex: 0,
    reasonRatio: 0,
    textTokens: 0,
    imageTokens: 0,
    audioTokens: 0,
    videoTokens: 0,
    ...extra,
  };
}

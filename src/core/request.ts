import { requestIdText, type WorkloadRequest } from "./workloadRequest.js";
import type { TokenSeq } from "./tokenSeq.js";
import type { StepRequestView } from "./stepView.js";
import { NO_HASH } from "./blockHash.js";

export const QUEUED = 0;
export const RUNNING = 1;
export const COMPLETED = 2;
/** Its client gave up at its deadline before it completed. */
export const TIMED_OUT = 3;
/**
 * Where a request is: waiting (or preempted), in the running batch, done, or abandoned. Small integers keep the field a
 * V8 Smi.
 */
export type RequestState = typeof QUEUED | typeof RUNNING | typeof COMPLETED | typeof TIMED_OUT;

/**
 * One simulated request while it lives in the cluster. Every field is initialized here so that
 * all Request objects share one hidden class (the step loop touches them constantly).
 * A request holds no token IDs, only how to make them (TokenSeq); its block hashes exist from its
 * first KV lookup to its completion, its block list from its first allocation. The metrics layer
 * keeps scalars.
 */
export class Request implements StepRequestView {
  /** n of the ID `request_<n>`, else -1 with the ID in idText (no string per request). */
  readonly idNum: number;
  readonly idText: string;
  /** Position in arrival order; used for stable tie-breaks that must not depend on string IDs. */
  readonly seq: number;
  readonly arrival: number;
  readonly inputLen: number;
  readonly outputLen: number;
  tokens: TokenSeq | null;
  readonly sloClass: string;
  readonly tenantId: string;
  readonly model: string;
  /** Client deadline, ticks (0 = none). */
  readonly deadline: number;
  /** TTFT target of `slo-deadline` gateway dispatch, ticks (0 = the class's target). */
  readonly sloTargetUs: number;
  /** LoRA adapter ID ("" = the base model). */
  readonly adapter: string;

  state: RequestState = QUEUED;
  pi = 0;
  numNewTokens = 0;
  /** Engine-side computed-token count (docs/behavior.md "Request lifecycle"); 0 when "deleted". */
  computed = 0;
  priority = 0;
  /** Priority floor set by the router priority bridge (0 = none). */
  priorityFloor = 0;
  /** Instance index this request was routed to (-1 = not routed). */
  instance = -1;
  /**
   * Its prompt's KV arrived from another instance (a PD decode sub-request, docs/prefill-decode.md):
   * admission places one decode token instead of looking up a prefix. Cleared once admitted, so a
   * preempted request recomputes its prompt like any other.
   */
  remoteKv = false;

  /** TTFT duration in ticks, -1 if no first token yet. */
  ttft = -1;
  itlCount = 0;
  itlSum = 0;
  /** Scheduling delay in ticks, -1 if never scheduled. */
  schedDelay = -1;
  scheduledStep = 0;
  /** Step index at which the current run of decode ITL entries began (-1 = none open). */
  decodeRunStart = -1;
  /** Closed decode runs as [start, end) step pairs (only after preemptions). */
  decodeRuns: number[] | null = null;

  /**
   * Set while the instance advances this request's decode implicitly, one token per step, without
   * visiting it (instance/decodeCohort.ts); its progress fields then hold their values as of
   * step `syncStep`, and it is visited again at step `dueStep`.
   */
  steady = false;
  syncStep = 0;
  dueStep = 0;
  /** Position key in the running batch: increases with each admission. */
  batchOrder = 0;
  /** Speculative tokens this request verifies in the current step (0 = a plain decode; docs/speculative.md). */
  specTokens = 0;
  /** Its acceptance profile on the instance (speculative/acceptance.ts); -1 until first looked up there. */
  specProfile = -1;

  /** KV block list (allocated with the first block). */
  blocks: Int32Array = EMPTY_BLOCKS;
  nBlocks = 0;
  /**
   * Block positions [kvRunFrom, kvRunTo) of the list: full private blocks that hold nothing anyone
   * can look up, freed together as one spent run (kv/freeList.ts); -1 when there are none.
   */
  kvRunFrom = -1;
  kvRunTo = -1;
  /** Tokens held by the last block of the list (meaningful when nBlocks > 0). */
  tailFill = 0;
  /** Hash of the last full block (the chain value the next block's hash starts from). */
  chainPrev = NO_HASH;
  /**
   * Chain hashes of the complete blocks of the whole sequence, input and output (lazily computed,
   * see kv/hash.ts sequenceHashes); the first floor(inputLen / blockSize) are the prompt's.
   */
  hashes: Float64Array | null = null;
  /**
   * Where the KV cache that preempted this request keeps the blocks of its private prompt content
   * that a later lookup may find (kv/privateEntries.ts): the tracker, its entries by prompt block
   * position (-1 = none) and its key there. Null and -1 until a first preemption.
   */
  kvTracker: object | null = null;
  kvEntries: Int32Array | null = null;
  kvEntryId = -1;

  constructor(
    w: WorkloadRequest,
    seq: number,
    /** KV block size of the cluster, in tokens. */
    readonly blockSize: number,
  ) {
    this.idNum = w.idNum;
    this.idText = w.idNum >= 0 ? "" : w.id;
    this.seq = seq;
    this.arrival = w.arrival;
    this.inputLen = w.inputLen;
    this.outputLen = w.outputLen;
    this.tokens = w.tokenSeq;
    this.sloClass = w.sloClass;
    this.tenantId = w.tenantId;
    this.model = w.model;
    this.deadline = w.deadline;
    this.sloTargetUs = w.sloTargetUs;
    this.adapter = w.adapter ?? "";
  }

  get id(): string {
    return requestIdText(this.idNum, this.idText);
  }

  appendBlock(b: number): void {
    if (this.nBlocks === this.blocks.length) this.growBlocks();
    this.blocks[this.nBlocks++] = b;
  }

  /** Makes room for n more blocks in `blocks` (filled from nBlocks by the caller). */
  reserveBlocks(n: number): void {
    while (this.nBlocks + n > this.blocks.length) this.growBlocks();
  }

  /** The first list holds the whole sequence's blocks. */
  private growBlocks(): void {
    const whole = Math.ceil((this.inputLen + this.outputLen) / this.blockSize) + 1;
    const grown = new Int32Array(this.blocks.length === 0 ? whole : this.blocks.length * 2 + 4);
    grown.set(this.blocks);
    this.blocks = grown;
  }

  /** Releases memory no longer needed once the request has left its instance. */
  dropPayload(): void {
    this.tokens = null;
    this.hashes = null;
    this.blocks = EMPTY_BLOCKS;
    this.nBlocks = 0;
    this.kvRunFrom = -1;
    this.kvRunTo = -1;
  }
}

const EMPTY_BLOCKS = new Int32Array(0);

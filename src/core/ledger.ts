import type { Request } from "./request.js";
import { requestIdText } from "./workloadRequest.js";
import { grownFloat64 as growF, grownInt32 as growI, grownUint8 } from "./typedArrays.js";

export const F_REGISTERED = 1;
export const F_COMPLETED = 2;
export const F_DROPPED = 4;
/** Timed out at its client deadline: still a record (with its TTFT if it had one), no E2E. */
export const F_TIMED_OUT = 8;

/** Canonical `request_<n>` IDs are stored as n; anything else in a side table. */
const OTHER_ID = -1;

/**
 * Per-request records of a run, stored column-wise and indexed by the request's arrival-order
 * sequence number. Live Request objects are held only until they complete or are dropped, so a
 * long run keeps about 80 bytes of scalars per request: the ID as its number, not a string.
 */
export class RequestLedger {
  /** n of `request_<n>`, or OTHER_ID with the ID in otherIds. */
  private idNum = new Float64Array(1024);
  private readonly otherIds = new Map<number, string>();
  private idCache: string[] | null = null;
  arrival = new Float64Array(1024);
  inputLen = new Int32Array(1024);
  outputLen = new Int32Array(1024);
  ttft = new Float64Array(1024);
  e2e = new Float64Array(1024);
  itl = new Float64Array(1024);
  sched = new Float64Array(1024);
  instance = new Int32Array(1024);
  slo = new Int32Array(1024);
  tenant = new Int32Array(1024);
  model = new Int32Array(1024);
  /** LoRA adapter, an index into adapterNames (0 = none). */
  adapter = new Int32Array(1024);
  flags = new Uint8Array(1024);
  private live: (Request | null)[] = [];
  /** Highest sequence number seen + 1. */
  size = 0;

  readonly sloNames: string[] = [""];
  readonly tenantNames: string[] = [""];
  readonly modelNames: string[] = [""];
  readonly adapterNames: string[] = [""];
  private readonly sloIds = new Map<string, number>([["", 0]]);
  private readonly tenantIds = new Map<string, number>([["", 0]]);
  private readonly modelIds = new Map<string, number>([["", 0]]);
  private readonly adapterIds = new Map<string, number>([["", 0]]);

  register(req: Request): void {
    const i = req.seq;
    this.ensure(i + 1);
    if (i >= this.size) this.size = i + 1;
    this.idCache = null;
    this.idNum[i] = req.idNum;
    if (req.idNum < 0) this.otherIds.set(i, req.idText);
    else this.otherIds.delete(i);
    this.arrival[i] = req.arrival;
    this.inputLen[i] = req.inputLen;
    this.outputLen[i] = req.outputLen;
    this.ttft[i] = -1;
    this.e2e[i] = -1;
    this.itl[i] = 0;
    this.sched[i] = -1;
    this.instance[i] = req.instance;
    this.slo[i] = intern(req.sloClass, this.sloIds, this.sloNames);
    this.tenant[i] = intern(req.tenantId, this.tenantIds, this.tenantNames);
    this.model[i] = intern(req.model, this.modelIds, this.modelNames);
    this.adapter[i] = req.adapter === "" ? 0 : intern(req.adapter, this.adapterIds, this.adapterNames);
    this.flags[i] = F_REGISTERED;
    this.live[i] = req;
  }

  complete(req: Request, e2e: number, perRequestItl: number): void {
    const i = req.seq;
    this.ttft[i] = req.ttft;
    this.sched[i] = req.schedDelay;
    this.e2e[i] = e2e;
    this.itl[i] = perRequestItl;
    this.flags[i] = F_REGISTERED | F_COMPLETED;
    this.live[i] = null;
  }

  /** Copies row i of another ledger (a user-level view of a run, docs/prefill-decode.md). */
  copyFrom(src: RequestLedger, i: number): void {
    this.ensure(i + 1);
    if (i >= this.size) this.size = i + 1;
    this.idCache = null;
    const n = src.idNum[i]!;
    this.idNum[i] = n;
    if (n === OTHER_ID) this.otherIds.set(i, src.otherIds.get(i) ?? "");
    this.arrival[i] = src.arrival[i]!;
    this.inputLen[i] = src.inputLen[i]!;
    this.outputLen[i] = src.outputLen[i]!;
    this.ttft[i] = src.ttft[i]!;
    this.e2e[i] = src.e2e[i]!;
    this.itl[i] = src.itl[i]!;
    this.sched[i] = src.sched[i]!;
    this.instance[i] = src.instance[i]!;
    this.slo[i] = intern(src.sloNames[src.slo[i]!]!, this.sloIds, this.sloNames);
    this.tenant[i] = intern(src.tenantNames[src.tenant[i]!]!, this.tenantIds, this.tenantNames);
    this.model[i] = intern(src.modelNames[src.model[i]!]!, this.modelIds, this.modelNames);
    this.adapter[i] = intern(src.adapterNames[src.adapter[i]!]!, this.adapterIds, this.adapterNames);
    this.flags[i] = src.flags[i]!;
  }

  /** Dropped as unservable: leaves the per-request table. */
  drop(req: Request): void {
    this.flags[req.seq] = F_DROPPED;
    this.live[req.seq] = null;
  }

  /** Timed out at its deadline: keeps its record and what it reached, without an E2E. */
  timeOut(req: Request): void {
    const i = req.seq;
    this.ttft[i] = req.ttft;
    this.sched[i] = req.schedDelay;
    this.flags[i] = F_REGISTERED | F_TIMED_OUT;
    this.live[i] = null;
  }

  /** Copies the current values of requests still in the system (end of run). */
  finalize(): void {
    for (let i = 0; i < this.size; i++) {
      const r = this.live[i];
      if (r) {
        this.ttft[i] = r.ttft;
        this.sched[i] = r.schedDelay;
      }
    }
  }

  /** The ID of the request with sequence number i ("" if it never reached an instance). */
  id(i: number): string {
    if (this.flags[i] === 0) return "";
    const n = this.idNum[i]!;
    return n === OTHER_ID ? (this.otherIds.get(i) ?? "") : requestIdText(n, "");
  }

  /**
   * Every ID by sequence number, a hole where a request never reached an instance; built on first
   * use after a change (tests, tools).
   */
  get ids(): string[] {
    if (this.idCache === null) {
      const out: string[] = new Array<string>(this.size);
      for (let i = 0; i < this.size; i++) if (this.flags[i] !== 0) out[i] = this.id(i);
      this.idCache = out;
    }
    return this.idCache;
  }

  /** ID order of requests a and b (tie-breaks): the order of the ID strings. */
  compareIds(a: number, b: number): number {
    const na = this.idNum[a]!;
    const nb = this.idNum[b]!;
    if (na === nb && na !== OTHER_ID) return 0;
    const ia = this.id(a);
    const ib = this.id(b);
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  }

  isRegistered(i: number): boolean {
    return (this.flags[i]! & F_REGISTERED) !== 0;
  }
  isCompleted(i: number): boolean {
    return (this.flags[i]! & F_COMPLETED) !== 0;
  }
  isTimedOut(i: number): boolean {
    return (this.flags[i]! & F_TIMED_OUT) !== 0;
  }

  private ensure(n: number): void {
    if (n <= this.arrival.length) return;
    let cap = this.arrival.length;
    while (cap < n) cap *= 2;
    this.idNum = growF(this.idNum, cap);
    this.arrival = growF(this.arrival, cap);
    this.inputLen = growI(this.inputLen, cap);
    this.outputLen = growI(this.outputLen, cap);
    this.ttft = growF(this.ttft, cap);
    this.e2e = growF(this.e2e, cap);
    this.itl = growF(this.itl, cap);
    this.sched = growF(this.sched, cap);
    this.instance = growI(this.instance, cap);
    this.slo = growI(this.slo, cap);
    this.tenant = growI(this.tenant, cap);
    this.model = growI(this.model, cap);
    this.adapter = growI(this.adapter, cap);
    this.flags = grownUint8(this.flags, cap);
  }
}

function intern(s: string, ids: Map<string, number>, names: string[]): number {
  let id = ids.get(s);
  if (id === undefined) {
    id = names.length;
    names.push(s);
    ids.set(s, id);
  }
  return id;
}

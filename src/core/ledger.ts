import type { Request } from "./request.js";

export const F_REGISTERED = 1;
export const F_COMPLETED = 2;
export const F_DROPPED = 4;

/**
 * Per-request records of a run, stored column-wise and indexed by the request's arrival-order
 * sequence number. Live Request objects are held only until they complete or are dropped, so a
 * long run keeps scalars, not token arrays.
 */
export class RequestLedger {
  ids: string[] = [];
  arrival = new Float64Array(1024);
  inputLen = new Float64Array(1024);
  outputLen = new Float64Array(1024);
  ttft = new Float64Array(1024);
  e2e = new Float64Array(1024);
  itl = new Float64Array(1024);
  sched = new Float64Array(1024);
  instance = new Int32Array(1024);
  slo = new Int32Array(1024);
  tenant = new Int32Array(1024);
  model = new Int32Array(1024);
  flags = new Uint8Array(1024);
  private live: (Request | null)[] = [];
  /** Highest sequence number seen + 1. */
  size = 0;

  readonly sloNames: string[] = [""];
  readonly tenantNames: string[] = [""];
  readonly modelNames: string[] = [""];
  private readonly sloIds = new Map<string, number>([["", 0]]);
  private readonly tenantIds = new Map<string, number>([["", 0]]);
  private readonly modelIds = new Map<string, number>([["", 0]]);

  register(req: Request): void {
    const i = req.seq;
    this.ensure(i + 1);
    if (i >= this.size) this.size = i + 1;
    this.ids[i] = req.id;
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

  /** Dropped as unservable: leaves the per-request table. */
  drop(req: Request): void {
    this.flags[req.seq] = F_DROPPED;
    this.live[req.seq] = null;
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

  isRegistered(i: number): boolean {
    return (this.flags[i]! & F_REGISTERED) !== 0;
  }
  isCompleted(i: number): boolean {
    return (this.flags[i]! & F_COMPLETED) !== 0;
  }

  private ensure(n: number): void {
    if (n <= this.arrival.length) return;
    let cap = this.arrival.length;
    while (cap < n) cap *= 2;
    this.arrival = growF(this.arrival, cap);
    this.inputLen = growF(this.inputLen, cap);
    this.outputLen = growF(this.outputLen, cap);
    this.ttft = growF(this.ttft, cap);
    this.e2e = growF(this.e2e, cap);
    this.itl = growF(this.itl, cap);
    this.sched = growF(this.sched, cap);
    this.instance = growI(this.instance, cap);
    this.slo = growI(this.slo, cap);
    this.tenant = growI(this.tenant, cap);
    this.model = growI(this.model, cap);
    const f = new Uint8Array(cap);
    f.set(this.flags);
    this.flags = f;
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

function growF(a: Float64Array, cap: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(cap);
  b.set(a);
  return b;
}
function growI(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}

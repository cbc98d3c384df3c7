import type { Request } from "../core/request.js";

/** One waiting request. Removed entries stay in their flow until they reach an end (lazy removal). */
export interface QueueEntry {
  readonly req: Request;
  /** Flow-control sequence number (1, 2, 3, … in admission order). */
  readonly seq: number;
  readonly enqueued: number;
  readonly priority: number;
  /** Dispatch deadline under `slo-deadline` ordering: enqueue time + target (Infinity: none). */
  readonly deadline: number;
  removed: boolean;
}

/** A tenant's FIFO inside a band. */
class Flow {
  readonly items: QueueEntry[] = [];
  head = 0;
  live = 0;
  constructor(readonly tenant: string) {}

  /** First live entry, dropping removed ones from the front. */
  first(): QueueEntry | null {
    while (this.head < this.items.length && this.items[this.head]!.removed) this.head++;
    if (this.head > 64 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return this.head < this.items.length ? this.items[this.head]! : null;
  }

  /** Last live entry, dropping removed ones from the back. */
  last(): QueueEntry | null {
    while (this.items.length > this.head && this.items[this.items.length - 1]!.removed) this.items.pop();
    return this.items.length > this.head ? this.items[this.items.length - 1]! : null;
  }

  /** The live entry with the smallest deadline (ties: smaller sequence number). */
  earliestDeadline(): QueueEntry | null {
    let best: QueueEntry | null = null;
    for (let i = this.head; i < this.items.length; i++) {
      const e = this.items[i]!;
      if (e.removed) continue;
      if (best === null || e.deadline < best.deadline) best = e;
    }
    return best;
  }
}

/** The requests of one priority value, one flow per tenant. */
export class Band {
  private readonly flows = new Map<string, Flow>();
  /** Tenants in byte order (flows are scanned in this order). */
  private tenants: string[] = [];
  size = 0;
  /** Round-robin: the tenant served last. */
  private cursor: string | null = null;
  constructor(readonly priority: number) {}

  add(e: QueueEntry): void {
    const t = e.req.tenantId === "" ? "default" : e.req.tenantId;
    let f = this.flows.get(t);
    if (f === undefined) {
      f = new Flow(t);
      this.flows.set(t, f);
      this.tenants.push(t);
      this.tenants.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
    f.items.push(e);
    f.live++;
    this.size++;
  }

  remove(e: QueueEntry): void {
    e.removed = true;
    const t = e.req.tenantId === "" ? "default" : e.req.tenantId;
    this.flows.get(t)!.live--;
    this.size--;
  }

  /** The flow to serve next: `global-strict` (oldest head) or `round-robin` (next tenant after the cursor). */
  private pickFlow(roundRobin: boolean): Flow | null {
    if (!roundRobin) {
      let best: Flow | null = null;
      let bestSeq = Infinity;
      for (const t of this.tenants) {
        const f = this.flows.get(t)!;
        if (f.live === 0) continue;
        const h = f.first()!;
        if (h.seq < bestSeq) {
          bestSeq = h.seq;
          best = f;
        }
      }
      return best;
    }
    const n = this.tenants.length;
    const at = this.cursor === null ? -1 : this.tenants.indexOf(this.cursor);
    for (let k = 1; k <= n; k++) {
      const f = this.flows.get(this.tenants[(at + k + n) % n]!)!;
      if (f.live > 0) {
        this.cursor = f.tenant;
        return f;
      }
    }
    return null;
  }

  /** Takes the next entry (null when the band is empty). */
  take(roundRobin: boolean, byDeadline: boolean): QueueEntry | null {
    const f = this.pickFlow(roundRobin);
    if (f === null) return null;
    const e = byDeadline ? f.earliestDeadline()! : f.first()!;
    this.remove(e);
    return e;
  }

  /** The latest-admitted live entry of the band (a shedding victim is always a flow's tail). */
  latest(): QueueEntry | null {
    let best: QueueEntry | null = null;
    for (const f of this.flows.values()) {
      if (f.live === 0) continue;
      const e = f.last()!;
      if (best === null || e.seq > best.seq) best = e;
    }
    return best;
  }

  /** Live entries (reports and tests). */
  *entries(): Generator<QueueEntry> {
    for (const t of this.tenants) {
      const f = this.flows.get(t)!;
      for (let i = f.head; i < f.items.length; i++) if (!f.items[i]!.removed) yield f.items[i]!;
    }
  }
}

/** Bands by priority, highest first; a band is never removed once created (dispatch ceilings count them all). */
export class BandedQueue {
  readonly bands: Band[] = [];
  size = 0;

  band(priority: number): Band {
    let i = 0;
    while (i < this.bands.length && this.bands[i]!.priority > priority) i++;
    const b = this.bands[i];
    if (b !== undefined && b.priority === priority) return b;
    const nb = new Band(priority);
    this.bands.splice(i, 0, nb);
    return nb;
  }

  add(e: QueueEntry): void {
    this.band(e.priority).add(e);
    this.size++;
  }

  remove(e: QueueEntry): void {
    this.band(e.priority).remove(e);
    this.size--;
  }

  /** Takes the next entry of band b (null when it is empty). */
  takeFrom(b: Band, roundRobin: boolean, byDeadline: boolean): QueueEntry | null {
    const e = b.take(roundRobin, byDeadline);
    if (e !== null) this.size--;
    return e;
  }

  /** The shedding victim: among sheddable entries the lowest priority, then the latest admitted. */
  victim(): QueueEntry | null {
    for (let i = this.bands.length - 1; i >= 0; i--) {
      const b = this.bands[i]!;
      if (b.priority >= 0) return null;
      if (b.size > 0) return b.latest();
    }
    return null;
  }
}

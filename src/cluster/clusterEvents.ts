import type { Request } from "../instance/request.js";

export const RANK_ADMISSION = 1;
export const RANK_ROUTING = 2;

/**
 * Min-heap of admission and routing decisions keyed by (time, rank, sequence). Arrivals are
 * not stored here: they come straight from the ordered request stream and always precede
 * these events at equal times (rank 0).
 */
export class ClusterEventQueue {
  private time: number[] = [];
  private rank: number[] = [];
  private seq: number[] = [];
  private payload: Request[] = [];
  private counter = 0;

  get size(): number {
    return this.time.length;
  }
  peekTime(): number {
    return this.time.length === 0 ? Infinity : this.time[0]!;
  }

  push(t: number, rank: number, req: Request): void {
    const s = this.counter++;
    let j = this.time.length;
    this.time.push(t);
    this.rank.push(rank);
    this.seq.push(s);
    this.payload.push(req);
    while (j > 0) {
      const i = (j - 1) >> 1;
      if (!less(t, rank, s, this.time[i]!, this.rank[i]!, this.seq[i]!)) break;
      this.copy(i, j);
      j = i;
    }
    this.set(j, t, rank, s, req);
  }

  /** Removes the head, reporting it through `out`. */
  pop(out: { rank: number; req: Request | null; time: number }): void {
    out.time = this.time[0]!;
    out.rank = this.rank[0]!;
    out.req = this.payload[0]!;
    const t = this.time.pop()!;
    const r = this.rank.pop()!;
    const s = this.seq.pop()!;
    const p = this.payload.pop()!;
    const n = this.time.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.lessIdx(c + 1, c)) c++;
      if (!less(this.time[c]!, this.rank[c]!, this.seq[c]!, t, r, s)) break;
      this.copy(c, i);
      i = c;
    }
    this.set(i, t, r, s, p);
  }

  private lessIdx(a: number, b: number): boolean {
    return less(this.time[a]!, this.rank[a]!, this.seq[a]!, this.time[b]!, this.rank[b]!, this.seq[b]!);
  }
  private copy(from: number, to: number): void {
    this.time[to] = this.time[from]!;
    this.rank[to] = this.rank[from]!;
    this.seq[to] = this.seq[from]!;
    this.payload[to] = this.payload[from]!;
  }
  private set(i: number, t: number, r: number, s: number, p: Request): void {
    this.time[i] = t;
    this.rank[i] = r;
    this.seq[i] = s;
    this.payload[i] = p;
  }
}

function less(t1: number, r1: number, s1: number, t2: number, r2: number, s2: number): boolean {
  if (t1 !== t2) return t1 < t2;
  if (r1 !== r2) return r1 < r2;
  return s1 < s2;
}

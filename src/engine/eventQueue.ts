// Binary min-heap of events keyed by (time, kind, insertion sequence): the instance events, and the
// cluster's admission and routing decisions. Parallel typed arrays keep it allocation-free in steady state.

export const EV_ARRIVAL = 0;
export const EV_QUEUED = 1;
/** A LoRA adapter finished loading (before the step of the same tick, which may then admit its requests). */
export const EV_ADAPTER_LOAD = 2;
export const EV_STEP = 3;
/** A client deadline (after steps at the same tick, so a request completing at its deadline wins). */
export const EV_TIMEOUT = 4;

export class EventQueue<P> {
  private time = new Float64Array(16);
  private kind = new Uint8Array(16);
  private seq = new Float64Array(16);
  private payload: (P | null)[] = new Array<P | null>(16).fill(null);
  private n = 0;
  private counter = 0;

  get size(): number {
    return this.n;
  }

  peekTime(): number {
    return this.n === 0 ? Infinity : this.time[0]!;
  }
  peekKind(): number {
    return this.kind[0]!;
  }
  peekPayload(): P | null {
    return this.payload[0]!;
  }

  push(t: number, k: number, p: P | null): void {
    if (this.n === this.time.length) this.grow();
    let j = this.n++;
    const s = this.counter++;
    while (j > 0) {
      const i = (j - 1) >> 1;
      if (!this.less(t, k, s, i)) break;
      this.move(i, j);
      j = i;
    }
    this.time[j] = t;
    this.kind[j] = k;
    this.seq[j] = s;
    this.payload[j] = p;
  }

  /** How many queued events satisfy `pred` (end-of-run accounting, not the hot path). */
  count(pred: (kind: number, payload: P | null) => boolean): number {
    let c = 0;
    for (let i = 0; i < this.n; i++) if (pred(this.kind[i]!, this.payload[i]!)) c++;
    return c;
  }

  /** Removes the head; read it with peek* first. */
  pop(): void {
    const last = --this.n;
    if (last === 0) {
      this.payload[0] = null;
      return;
    }
    const t = this.time[last]!;
    const k = this.kind[last]!;
    const s = this.seq[last]!;
    const p = this.payload[last]!;
    this.payload[last] = null;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      if (c + 1 < last && this.lessIdx(c + 1, c)) c++;
      if (!this.lessAt(c, t, k, s)) break;
      this.move(c, i);
      i = c;
    }
    this.time[i] = t;
    this.kind[i] = k;
    this.seq[i] = s;
    this.payload[i] = p;
  }

  private less(t: number, k: number, s: number, i: number): boolean {
    const ti = this.time[i]!;
    if (t !== ti) return t < ti;
    const ki = this.kind[i]!;
    if (k !== ki) return k < ki;
    return s < this.seq[i]!;
  }
  /** entry at index c < (t, k, s) */
  private lessAt(c: number, t: number, k: number, s: number): boolean {
    const tc = this.time[c]!;
    if (tc !== t) return tc < t;
    const kc = this.kind[c]!;
    if (kc !== k) return kc < k;
    return this.seq[c]! < s;
  }
  private lessIdx(a: number, b: number): boolean {
    return this.lessAt(a, this.time[b]!, this.kind[b]!, this.seq[b]!);
  }
  private move(from: number, to: number): void {
    this.time[to] = this.time[from]!;
    this.kind[to] = this.kind[from]!;
    this.seq[to] = this.seq[from]!;
    this.payload[to] = this.payload[from]!;
  }
  private grow(): void {
    const cap = this.time.length * 2;
    const t = new Float64Array(cap);
    t.set(this.time);
    this.time = t;
    const k = new Uint8Array(cap);
    k.set(this.kind);
    this.kind = k;
    const s = new Float64Array(cap);
    s.set(this.seq);
    this.seq = s;
    const p = new Array<P | null>(cap).fill(null);
    for (let i = 0; i < this.n; i++) p[i] = this.payload[i]!;
    this.payload = p;
  }
}

// Ring-buffer deque: O(1) at both ends (preempted requests go to the front of the wait queue).

export class Deque<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private len = 0;
  private mask: number;

  constructor(capacity = 16) {
    let cap = 16;
    while (cap < capacity) cap *= 2;
    this.buf = new Array<T | undefined>(cap);
    this.mask = cap - 1;
  }

  get length(): number {
    return this.len;
  }

  at(i: number): T {
    return this.buf[(this.head + i) & this.mask]!;
  }

  peekFront(): T {
    return this.buf[this.head]!;
  }

  pushBack(x: T): void {
    if (this.len === this.buf.length) this.grow();
    this.buf[(this.head + this.len) & this.mask] = x;
    this.len++;
  }

  pushFront(x: T): void {
    if (this.len === this.buf.length) this.grow();
    this.head = (this.head - 1) & this.mask;
    this.buf[this.head] = x;
    this.len++;
  }

  popFront(): T {
    const x = this.buf[this.head]!;
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.len--;
    return x;
  }

  /** Copies the contents, front to back, into `out` (reused), and returns it. */
  toArray(out: T[] = []): T[] {
    out.length = this.len;
    for (let i = 0; i < this.len; i++) out[i] = this.buf[(this.head + i) & this.mask]!;
    return out;
  }

  /** Replaces the contents with items[0 .. items.length). */
  assign(items: readonly T[]): void {
    while (this.buf.length < items.length) this.grow();
    for (let i = 0; i < this.len; i++) this.buf[(this.head + i) & this.mask] = undefined;
    this.head = 0;
    this.len = items.length;
    for (let i = 0; i < items.length; i++) this.buf[i] = items[i];
  }

  /** Removes the first occurrence of x, keeping the order of the rest; false when absent. O(n). */
  remove(x: T): boolean {
    let i = 0;
    while (i < this.len && this.buf[(this.head + i) & this.mask] !== x) i++;
    if (i === this.len) return false;
    for (; i < this.len - 1; i++) this.buf[(this.head + i) & this.mask] = this.buf[(this.head + i + 1) & this.mask];
    this.buf[(this.head + this.len - 1) & this.mask] = undefined;
    this.len--;
    return true;
  }

  private grow(): void {
    const old = this.buf;
    const cap = old.length * 2;
    const next = new Array<T | undefined>(cap);
    for (let i = 0; i < this.len; i++) next[i] = old[(this.head + i) & this.mask];
    this.buf = next;
    this.head = 0;
    this.mask = cap - 1;
  }
}

// A counting semaphore bounding the requests in flight (`--max-concurrency`, docs/observe.md).

export class Semaphore {
  private available: number;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`semaphore capacity must be a positive integer, got ${capacity}`);
    this.available = capacity;
  }

  /** Slots currently taken. */
  get inUse(): number {
    return this.capacity - this.available;
  }

  /** Waits for a free slot; resolves false (without a slot) when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.available > 0) {
      this.available--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(false);
      };
      this.waiters.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.available++;
  }
}

// Wall-clock helpers of `blis observe` (docs/observe.md): absolute Unix-epoch microseconds with
// sub-millisecond resolution, and cancellable sleeps.

import { performance } from "node:perf_hooks";

/** Current Unix-epoch time in whole microseconds (monotonic within one process). */
export function nowUs(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** Resolves after `ms` milliseconds, or at once (with false) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (!(ms > 0)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

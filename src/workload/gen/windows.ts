// Lifecycle windows (docs/behavior.md "Arrivals") as sorted disjoint intervals. Arrival times of a
// client only grow, so membership is answered with a forward-only cursor.

import type { WindowSpec } from "../spec/types.js";

/** Sorted, merged intervals of a window list; immutable and shared by clients with the same list. */
export class WindowSet {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** End of the last window: no arrival at or after it can be active (docs/behavior.md#w7). */
  readonly lastEnd: number;

  constructor(windows: readonly WindowSpec[]) {
    const sorted = windows.filter((w) => w.start_us < w.end_us).sort((a, b) => a.start_us - b.start_us);
    for (const w of sorted) {
      const n = this.ends.length;
      if (n > 0 && w.start_us <= this.ends[n - 1]!) {
        if (w.end_us > this.ends[n - 1]!) this.ends[n - 1] = w.end_us;
      } else {
        this.starts.push(w.start_us);
        this.ends.push(w.end_us);
      }
    }
    this.lastEnd = this.ends.length > 0 ? this.ends[this.ends.length - 1]! : -Infinity;
  }
}

/** A client's view of a WindowSet with its own forward-only cursor. */
export class ActiveWindows {
  private cursor = 0;
  readonly lastEnd: number;
  constructor(private readonly set: WindowSet) {
    this.lastEnd = set.lastEnd;
  }

  /** Whether t is in some window [start, end); t must not decrease between calls. */
  contains(t: number): boolean {
    const ends = this.set.ends;
    while (this.cursor < ends.length && ends[this.cursor]! <= t) this.cursor++;
    return this.cursor < ends.length && this.set.starts[this.cursor]! <= t;
  }
}

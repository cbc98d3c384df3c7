// While a coordinator has runs on the queue, it looks at how many workers are connected: with
// none, it says so on stderr (at once, then every REPEAT_S seconds), and with --wait-timeout it
// gives up after that many seconds without a worker. Wall-clock facts go to stderr only.

import { UserError } from "../util/errors.js";

/** How often the connected workers are counted. */
const POLL_MS = 1000;
/** How often "waiting for workers" is repeated while none is connected. */
const REPEAT_S = 30;

export interface WaitWatchOptions {
  /** The queue's URL as shown to the user. */
  display: string;
  /** Seconds without any connected worker after which the runs fail; undefined: wait for ever. */
  timeoutS?: number;
  say: (line: string) => void;
  /** Workers connected to the queue now. */
  countWorkers: () => Promise<number>;
  /** Called once when the wait times out, with the error every waiting run fails with. */
  giveUp: (e: UserError) => void;
}

export class WaitWatch {
  private timer: NodeJS.Timeout | null = null;
  /** When the current stretch without workers began (ms), or null while one is connected. */
  private aloneSince: number | null = null;
  private lastSaid = -Infinity;
  private checking = false;
  private done = false;

  constructor(private readonly o: WaitWatchOptions) {}

  /** Starts counting (idempotent): called when runs are queued. */
  start(): void {
    if (this.timer !== null || this.done) return;
    void this.check();
    this.timer = setInterval(() => void this.check(), POLL_MS);
  }

  /** Stops counting: no run is waiting any more. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.aloneSince = null;
  }

  private async check(): Promise<void> {
    if (this.checking || this.done) return;
    this.checking = true;
    try {
      let n: number;
      try {
        n = await this.o.countWorkers();
      } catch {
        return; // the connection recovers on its own; count again next time
      }
      if (this.timer === null) return;
      this.observe(n, performance.now());
    } finally {
      this.checking = false;
    }
  }

  private observe(workers: number, now: number): void {
    if (workers > 0) {
      if (this.aloneSince !== null)
        this.o.say(`${workers} worker${workers === 1 ? "" : "s"} connected to ${this.o.display}`);
      this.aloneSince = null;
      this.lastSaid = -Infinity;
      return;
    }
    this.aloneSince ??= now;
    const waitedS = (now - this.aloneSince) / 1000;
    const t = this.o.timeoutS;
    if (t !== undefined && waitedS >= t) {
      this.done = true;
      this.stop();
      this.o.giveUp(
        new UserError(
          `--wait-timeout ${t}: no worker connected to the queue ${this.o.display} in ${t} s (start one with: blis worker --queue ${this.o.display})`,
        ),
      );
      return;
    }
    if (now - this.lastSaid >= REPEAT_S * 1000) {
      this.lastSaid = now;
      const limit = t !== undefined ? `; giving up after ${t} s` : "";
      this.o.say(
        `waiting for workers on ${this.o.display} (0 connected${waitedS >= 1 ? `, ${Math.floor(waitedS)} s so far` : ""}${limit})`,
      );
    }
  }
}

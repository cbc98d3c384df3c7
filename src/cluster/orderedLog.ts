// The instances' logger: while the cluster runs one instance's events back to back (cluster.ts),
// their log lines wait here and leave in the order one-event-at-a-time processing would have
// written them: by event time, then instance index, then as written.

import { Logger, type LogLevel } from "../util/log.js";

export class OrderedLogger extends Logger {
  private buffering = false;
  private time = 0;
  private instance = 0;
  private readonly times: number[] = [];
  private readonly instances: number[] = [];
  private readonly levels: LogLevel[] = [];
  private readonly messages: string[] = [];

  constructor(private readonly target: Logger) {
    super(target.level, () => {});
  }

  override enabled(level: LogLevel): boolean {
    return this.target.enabled(level);
  }

  override log(level: LogLevel, msg: string): void {
    if (!this.target.enabled(level)) return;
    if (!this.buffering) {
      this.target.log(level, msg);
      return;
    }
    this.times.push(this.time);
    this.instances.push(this.instance);
    this.levels.push(level);
    this.messages.push(msg);
  }

  /** Holds lines from now on, each tagged with the event (time, instance) set by at(). */
  hold(): void {
    this.buffering = true;
  }

  /** Writes the held lines and stops holding. */
  release(): void {
    this.flush();
    this.buffering = false;
  }

  /** The event whose lines come next. */
  at(time: number, instance: number): void {
    this.time = time;
    this.instance = instance;
  }

  /** Writes the held lines in event order. */
  flush(): void {
    const n = this.messages.length;
    if (n === 0) return;
    const order = Array.from({ length: n }, (_, k) => k);
    const t = this.times;
    const inst = this.instances;
    order.sort((a, b) => t[a]! - t[b]! || inst[a]! - inst[b]! || a - b);
    for (const k of order) this.target.log(this.levels[k]!, this.messages[k]!);
    t.length = 0;
    inst.length = 0;
    this.levels.length = 0;
    this.messages.length = 0;
  }
}

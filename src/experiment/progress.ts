// Progress on stderr: a cli-progress bar on a terminal; otherwise a plain line at most once a
// second (and a final one).

import cliProgress from "cli-progress";

export type ProgressMode = "auto" | "bar" | "lines" | "none";

export interface Progress {
  start(total: number, done: number): void;
  /** A run finished (this session). */
  tick(done: number, failed: number): void;
  stop(): void;
}

export function createProgress(
  mode: ProgressMode,
  stream: NodeJS.WriteStream = process.stderr,
  line?: (s: string) => void,
): Progress {
  const resolved = mode === "auto" ? (stream.isTTY ? "bar" : "lines") : mode;
  if (resolved === "none") return { start() {}, tick() {}, stop() {} };
  if (resolved === "bar") return new BarProgress(stream);
  return new LineProgress(line ?? ((s) => stream.write(s + "\n")));
}

function rateText(n: number, ms: number): string {
  return ms > 0 ? ((n * 1000) / ms).toFixed(2) : "0.00";
}

function etaText(remaining: number, n: number, ms: number): string {
  if (n === 0) return "?";
  const s = Math.round((remaining * ms) / n / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
      : `${s}s`;
}

class LineProgress implements Progress {
  private total = 0;
  private startDone = 0;
  private t0 = 0;
  private last = 0;
  private lastText = "";
  private done = 0;
  private failed = 0;
  constructor(private readonly out: (s: string) => void) {}
  start(total: number, done: number): void {
    this.total = total;
    this.startDone = done;
    this.done = done;
    this.t0 = Date.now();
    this.last = 0;
    this.out(`sweep: ${total} runs, ${done} already finished, ${total - done} to run`);
  }
  tick(done: number, failed: number): void {
    this.done = done;
    this.failed = failed;
    const now = Date.now();
    if (now - this.last >= 1000 || done === this.total) {
      this.last = now;
      this.emit(now);
    }
  }
  private emit(now: number): void {
    const n = this.done - this.startDone;
    const ms = now - this.t0;
    const text =
      `sweep: ${this.done}/${this.total} runs done, ${this.failed} failed, ${rateText(n, ms)} runs/s` +
      (this.done < this.total ? `, ETA ${etaText(this.total - this.done, n, ms)}` : ` in ${(ms / 1000).toFixed(1)}s`);
    if (text !== this.lastText) this.out(text);
    this.lastText = text;
  }
  stop(): void {
    if (this.done === this.total && this.lastText.includes(` ${this.done}/${this.total} `)) return;
    this.emit(Date.now());
  }
}

class BarProgress implements Progress {
  private readonly bar: cliProgress.SingleBar;
  private t0 = 0;
  private startDone = 0;
  constructor(stream: NodeJS.WriteStream) {
    this.bar = new cliProgress.SingleBar(
      {
        stream,
        format: "sweep |{bar}| {value}/{total} runs | {rate} runs/s | ETA {eta_text} | failed {failed}",
        hideCursor: false, // a Ctrl-C must not leave the terminal without a cursor
        clearOnComplete: false,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
  }
  start(total: number, done: number): void {
    this.t0 = Date.now();
    this.startDone = done;
    this.bar.start(total, done, { rate: "0.00", failed: 0, eta_text: "?" });
  }
  tick(done: number, failed: number): void {
    const n = done - this.startDone;
    const ms = Date.now() - this.t0;
    this.bar.update(done, { rate: rateText(n, ms), failed, eta_text: etaText(this.bar.getTotal() - done, n, ms) });
  }
  stop(): void {
    this.bar.stop();
  }
}

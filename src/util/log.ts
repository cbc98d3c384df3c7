// Leveled logger on stderr. Stdout carries only simulation results.

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "panic"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5, panic: 6 };

export function parseLogLevel(text: string): LogLevel | null {
  const t = text.toLowerCase();
  if (t === "warning") return "warn";
  return (LOG_LEVELS as readonly string[]).includes(t) ? (t as LogLevel) : null;
}

export class Logger {
  constructor(
    public level: LogLevel = "warn",
    private readonly sink: (line: string) => void = (line) => process.stderr.write(line + "\n"),
  ) {}

  enabled(level: LogLevel): boolean {
    return RANK[level] >= RANK[this.level];
  }
  log(level: LogLevel, msg: string): void {
    if (RANK[level] >= RANK[this.level]) this.sink(`level=${level} msg=${JSON.stringify(msg)}`);
  }
  trace(msg: string): void {
    this.log("trace", msg);
  }
  debug(msg: string): void {
    this.log("debug", msg);
  }
  info(msg: string): void {
    this.log("info", msg);
  }
  warn(msg: string): void {
    this.log("warn", msg);
  }
  error(msg: string): void {
    this.log("error", msg);
  }
}

/** A logger that drops everything (library use, tests). */
export const silentLogger = new Logger("panic", () => {});

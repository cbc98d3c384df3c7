// Commands given --plugin run in a worker thread watched from this one. Plugin code can do what no
// guard around it can undo in its own thread: loop for ever (in a load, register() or a
// synchronous call such as score()), await something that never settles at its top level, call
// process.exit, or leave a rejection unhandled. Each of these ends the command here with one
// line naming the plugin file and exit status 1, within --plugin-timeout of the stall.

import { Worker } from "node:worker_threads";
import type { CliIo } from "./io.js";
import type { HostData, HostMessage } from "./pluginHostProtocol.js";
import { PHASE_LOAD, WATCH } from "../plugin/watch.js";

const WORKER_URL = new URL("./pluginHostWorker.js", import.meta.url);
/** How often the watchdog looks at the shared state. */
const POLL_MS = 100;

/** Whether these arguments load a plugin from the command line. */
export function asksForPlugins(argv: readonly string[]): boolean {
  return argv.some((a) => a === "--plugin" || a.startsWith("--plugin="));
}

/** The --plugin files of `argv`, in order (distinct: a file given twice loads once). */
function pluginFiles(argv: readonly string[]): string[] {
  const out: string[] = [];
  argv.forEach((a, i) => {
    const file = a === "--plugin" ? argv[i + 1] : a.startsWith("--plugin=") ? a.slice("--plugin=".length) : undefined;
    if (file !== undefined && !out.includes(file)) out.push(file);
  });
  return out;
}

/** Names plugins by their files as given: the one meant, else every one loaded. */
class Blame {
  readonly files = new Map<number, string>();

  /**
   * `given`: the --plugin files in command-line order, which is the order ids are handed out in.
   * They name a plugin whose announcement has not arrived yet: a thread's error event can overtake
   * its messages.
   */
  constructor(private readonly given: readonly string[]) {}

  of(id: number): string {
    const file = this.files.get(id) ?? this.given[id - 1];
    if (file !== undefined) return `plugin ${file}`;
    const all = [...this.files.values()];
    return all.length === 1 ? `plugin ${all[0]!}` : `a plugin (${all.length > 0 ? all.join(", ") : "none loaded yet"})`;
  }

  /** The plugin whose file the stack names, else the one running now. */
  ofStack(stack: string, active: number): string {
    for (const [id, file] of this.files) {
      const base = file.split(/[\\/]/).pop()!;
      if (base !== "" && stack.includes(base)) return this.of(id);
    }
    return this.of(active);
  }
}

/** Watches one load or call at a time: the same entry still running after the budget is a stall. */
class Stall {
  private active = 0;
  private seq = -1;
  private since = 0;

  constructor(private readonly view: Int32Array) {}

  /** The stalled plugin's id and phase, or null. */
  check(now: number): { id: number; phase: number; budgetMs: number } | null {
    const budgetMs = Atomics.load(this.view, WATCH.BUDGET_MS);
    const active = Atomics.load(this.view, WATCH.ACTIVE);
    const seq = Atomics.load(this.view, WATCH.SEQ);
    if (active === 0 || active !== this.active || seq !== this.seq) {
      this.active = active;
      this.seq = seq;
      this.since = now;
      return null;
    }
    if (budgetMs > 0 && now - this.since >= budgetMs)
      return { id: active, phase: Atomics.load(this.view, WATCH.PHASE), budgetMs };
    return null;
  }
}

function stallLine(who: string, phase: number, budgetMs: number): string {
  const what = phase === PHASE_LOAD ? "loading it or its register() did not finish" : "a call into it did not return";
  return `${who}: ${what} within ${budgetMs / 1000} s (--plugin-timeout)`;
}

/** Why the thread ended without finishing the command. */
function exitLine(view: Int32Array, blame: Blame, status: number): string {
  const exit = Atomics.load(view, WATCH.EXIT);
  if (exit > 0) return `${blame.of(Atomics.load(view, WATCH.EXIT_PLUGIN))} called process.exit(${exit - 1})`;
  const active = Atomics.load(view, WATCH.ACTIVE);
  if (active !== 0 && Atomics.load(view, WATCH.PHASE) === PHASE_LOAD) {
    return `${blame.of(active)}: loading it or its register() never finished (a top-level await or a promise that never settles)`;
  }
  return `${blame.of(active)}: the run ended early (status ${status}) while plugins were loaded`;
}

/** Runs `blis <argv>` in a watched thread; the exit status of the command, or 1 for a plugin at fault. */
export async function hostedMain(argv: string[], io: CliIo): Promise<number> {
  const state = new SharedArrayBuffer(WATCH.SLOTS * Int32Array.BYTES_PER_ELEMENT);
  const view = new Int32Array(state);
  const blame = new Blame(pluginFiles(argv));
  const stall = new Stall(view);
  const data: HostData = { pluginHost: true, argv, state };
  // Flags only a main thread takes (`node --input-type=module -e …`) would stop the thread.
  const execArgv = process.execArgv.filter((a) => !a.startsWith("--input-type"));
  const worker = new Worker(WORKER_URL, { workerData: data, execArgv });
  // Output is held until the command ends, so that a plugin failing late leaves none half-written.
  const out: string[] = [];
  return new Promise<number>((resolve) => {
    let settled = false;
    const finish = (code: number, line?: string, internal?: string): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      if (internal !== undefined) io.stderrLine(internal);
      else if (line !== undefined) io.stderrLine(`error: ${line}`);
      else if (out.length > 0) io.stdout(out.join(""));
      void worker.terminate();
      resolve(code);
    };
    const timer = setInterval(() => {
      const s = stall.check(performance.now());
      if (s !== null) finish(1, stallLine(blame.of(s.id), s.phase, s.budgetMs));
    }, POLL_MS);
    worker.on("message", (m: HostMessage) => {
      if (settled) return;
      if (m.kind === "plugin") blame.files.set(m.id, m.file);
      else if (m.kind === "out") out.push(m.text);
      else if (m.kind === "err") io.stderrLine(m.line);
      else if (m.kind === "rejection")
        finish(1, `${blame.ofStack(m.stack, Atomics.load(view, WATCH.ACTIVE))}: unhandled rejection: ${m.message}`);
      else finish(m.code);
    });
    worker.on("error", (e) =>
      blame.files.size === 0 && Atomics.load(view, WATCH.ACTIVE) === 0
        ? finish(2, undefined, `internal error: the plugin host thread failed: ${e.message.split("\n")[0]}`)
        : finish(
            1,
            `${blame.ofStack(e.stack ?? "", Atomics.load(view, WATCH.ACTIVE))}: uncaught exception: ${e.message.split("\n")[0]}`,
          ),
    );
    worker.on("exit", (status) => finish(1, exitLine(view, blame, status)));
  });
}

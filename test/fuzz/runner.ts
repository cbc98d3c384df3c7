// Runs CLI cases in one reused worker thread with a wall-clock limit per case. A simulation is
// synchronous, so a timer in its own thread could never interrupt it: a case that overruns has
// its worker terminated (and a fresh one started for the next case), and counts as a hang.

import { Worker } from "node:worker_threads";
import type { CaseReply, CaseRequest } from "./worker.js";

export type Outcome =
  | { kind: "exit"; code: number | null; stdout: string; stderr: string[]; escaped: string[]; ms: number }
  | { kind: "timeout"; ms: number }
  | { kind: "crash"; message: string };

const WORKER_FILE = new URL("./worker.js", import.meta.url);
/**
 * The per-case limit. A hang runs forever, so the limit only has to exceed the slowest legitimate
 * case with room for a loaded machine: a generated workload may ask for the million-request cap
 * (7.5 s on the slowest host seen, idle).
 */
export const CASE_LIMIT_MS = 30_000;
/** Time to start a worker and import the CLI, not counted against a case. */
const START_LIMIT_MS = 60_000;

interface Pending {
  id: number;
  settle: (o: Outcome) => void;
}

export class CaseRunner {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private pending: Pending | null = null;
  private nextId = 1;

  constructor(readonly timeoutMs = CASE_LIMIT_MS) {}

  /** Runs `blis <argv>`, with `timeoutMs` instead of the runner's limit if given; never rejects. */
  async run(argv: string[], timeoutMs = this.timeoutMs): Promise<Outcome> {
    try {
      await this.start();
    } catch (e) {
      this.stop();
      return { kind: "crash", message: `worker did not start: ${(e as Error).message}` };
    }
    const worker = this.worker!;
    const id = this.nextId++;
    const t0 = performance.now();
    return new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => {
        this.pending = null;
        this.stop();
        resolve({ kind: "timeout", ms: performance.now() - t0 });
      }, timeoutMs);
      this.pending = {
        id,
        settle: (o) => {
          clearTimeout(timer);
          this.pending = null;
          resolve(o.kind === "exit" ? { ...o, ms: performance.now() - t0 } : o);
        },
      };
      const req: CaseRequest = { id, argv };
      worker.postMessage(req);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w !== null) await w.terminate();
  }

  private start(): Promise<void> {
    if (this.ready !== null) return this.ready;
    // A heap limit turns a runaway allocation into a crash of this worker instead of the test process.
    const worker = new Worker(WORKER_FILE, {
      resourceLimits: { maxOldGenerationSizeMb: 1536 },
      stdout: true,
      stderr: true,
    });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out")), START_LIMIT_MS);
      worker.on("message", (m: CaseReply | { ready: true }) => {
        if ("ready" in m) {
          clearTimeout(timer);
          resolve();
        } else if (this.pending !== null && this.pending.id === m.id) {
          this.pending.settle({
            kind: "exit",
            code: m.code,
            stdout: m.stdout,
            stderr: m.stderr,
            escaped: m.escaped,
            ms: 0,
          });
        }
      });
      const fail = (why: string): void => {
        clearTimeout(timer);
        reject(new Error(why));
        // A worker stopped after a timeout (or at close) reports nothing: its case is settled already.
        if (this.worker !== worker) return;
        this.worker = null;
        this.ready = null;
        this.pending?.settle({ kind: "crash", message: why });
      };
      worker.on("error", (e) => fail(`worker error: ${e.name}: ${e.message.split("\n")[0] ?? ""}`));
      worker.on("exit", (code) => fail(`the worker exited (status ${code}): process.exit called, or out of memory`));
    });
    // Rejections after the start are reported through the pending case.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private stop(): void {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w !== null) void w.terminate();
  }
}

// The simulator's Web Worker seen from the page. The worker's code arrives as text (worker.js sets
// it on globalThis) and starts from a Blob URL, which works from file:// too; the bundled data
// (data.js) is posted to it once. Requests carry ids; a running simulation is synchronous, so
// cancelling one terminates the worker (a new one is started for the next run).

import type {
  Checked,
  DataFiles,
  FieldError,
  FromWorker,
  Params,
  PlaygroundInfo,
  Progress,
  RunSummary,
  ToWorker,
} from "../shared/protocol.js";

declare global {
  // Set by worker.js and data.js (classic scripts).
  var blisWorkerSource: string | undefined;
  var blisData: DataFiles | undefined;
}

let blobUrl: string | null = null;

function workerUrl(): string {
  if (blobUrl !== null) return blobUrl;
  const src = globalThis.blisWorkerSource;
  if (src === undefined) throw new Error("worker.js did not load");
  blobUrl = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  return blobUrl;
}

export type RunOutcome = { ok: true; result: RunSummary } | { ok: false; errors: FieldError[] };

interface Pending {
  resolve(m: FromWorker): void;
  progress?: (p: Progress) => void;
}

export class SimWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  readonly info: Promise<PlaygroundInfo>;
  private stopped = false;

  constructor() {
    this.worker = new Worker(workerUrl());
    let gotInfo: (i: PlaygroundInfo) => void = () => undefined;
    this.info = new Promise((res) => (gotInfo = res));
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => {
      const m = ev.data;
      if (m.type === "info") return gotInfo(m.info);
      const p = this.pending.get(m.id);
      if (p === undefined) return;
      if (m.type === "progress") return p.progress?.(m.progress);
      this.pending.delete(m.id);
      p.resolve(m);
    };
    this.worker.onerror = (ev) => {
      ev.preventDefault();
      const errors = [{ field: "", message: `internal error: ${ev.message}` }];
      for (const [id, p] of this.pending) p.resolve({ type: "failed", id, errors });
      this.pending.clear();
    };
    const data = globalThis.blisData;
    if (data === undefined) throw new Error("data.js did not load");
    this.post({ type: "init", data });
  }

  private post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private request(make: (id: number) => ToWorker, progress?: (p: Progress) => void): Promise<FromWorker> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, progress !== undefined ? { resolve, progress } : { resolve });
      this.post(make(id));
    });
  }

  async check(params: Params): Promise<Checked> {
    const m = await this.request((id) => ({ type: "check", id, params }));
    if (m.type === "checked") return m.checked;
    return { errors: m.type === "failed" ? m.errors : [], command: "", workloadYaml: "" };
  }

  async run(params: Params, detail: "full" | "metrics", progress: (p: Progress) => void): Promise<RunOutcome> {
    const m = await this.request((id) => ({ type: "run", id, params, detail }), progress);
    if (m.type === "result") return { ok: true, result: m.result };
    return { ok: false, errors: m.type === "failed" ? m.errors : [] };
  }

  /** Stops the worker; pending requests end as cancelled. */
  terminate(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.terminate();
    for (const [id, p] of this.pending)
      p.resolve({ type: "failed", id, errors: [{ field: "", message: "cancelled" }] });
    this.pending.clear();
  }
}

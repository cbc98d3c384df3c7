// What every pool child process (tinypool, runtime child_process) does besides its tasks: it ends
// with the process that started it. A child whose parent was killed (SIGKILL, or SIGTERM to the
// parent alone) would otherwise run on under PID 1, for ever with a looping plugin. A thread
// watches the parent, so a child busy in a long simulation still notices. Ctrl-C reaches the whole
// process group: the child leaves it to the parent, which stops the pool in order. So does a
// SIGTERM to the group (a queue worker stopping): a busy child finishes its run, whose result the
// parent is waiting for, and only an idle child ends at once (as when the pool closes).

import { Worker } from "node:worker_threads";

const WATCH = `
const { workerData } = require("node:worker_threads");
setInterval(() => {
  if (process.ppid !== workerData.ppid) process.kill(workerData.pid, "SIGKILL");
}, 200);
`;

/** Whether this process is a pool child: forked with an IPC channel by tinypool's process entry. */
function isPoolChild(): boolean {
  return typeof process.send === "function" && /tinypool[\\/].*process\.js$/.test(process.argv[1] ?? "");
}

let started = false;
/** Runs in progress in this child. */
let busy = 0;

/** Brackets one run, so that a SIGTERM does not cut it short. */
export function runStarted(): void {
  busy++;
}

export function runEnded(): void {
  busy--;
}

/** Ends an idle child once what it has sent (a run's result) has reached the channel. */
function endWhenIdle(): void {
  if (busy > 0) return;
  const exit = (): never => process.exit(0);
  const send = process.send?.bind(process);
  if (send === undefined || !process.connected) return exit();
  try {
    // IPC messages go in order: the callback runs once the earlier ones are written too.
    send({ blisPoolChildExit: true }, undefined, {}, exit);
  } catch {
    exit();
  }
}

/** Starts the watch once, in pool children only. */
export function bindToParent(): void {
  if (started || !isPoolChild()) return;
  started = true;
  // The parent's pid as it started this child: a parent killed while the child was still loading
  // is noticed too (process.ppid would already be the new parent's).
  const parent = Number(process.env["BLIS_POOL_PARENT"] ?? process.ppid);
  if (process.ppid !== parent) process.kill(process.pid, "SIGKILL");
  const watcher = new Worker(WATCH, { eval: true, workerData: { ppid: parent, pid: process.pid } });
  watcher.unref();
  process.on("SIGINT", () => undefined);
  process.on("SIGTERM", endWhenIdle);
}

// Loaded with --import by every pool child (pool.ts), before tinypool's entry and the simulator:
// a signal to the process group while the child is still loading finds the handlers in place.
bindToParent();

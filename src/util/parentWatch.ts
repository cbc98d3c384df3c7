// A long-lived command with an idle event loop (a server) ends with the process that started it:
// killed together with `npx`, a shell or a supervisor that does not pass the signal on, it would
// otherwise serve on under PID 1 for good. Its parent is gone when its parent pid changes.

/** How often the parent pid is read. */
const POLL_MS = 500;

/** Calls `onGone` once when this process's parent ends; returns what stops watching. */
export function watchParent(onGone: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, POLL_MS);
  // The watch alone does not keep the process alive.
  timer.unref();
  return () => clearInterval(timer);
}

// The playground's Web Worker: mounts the bundled data in the in-memory file system, then answers
// the page's messages (web/shared/protocol.ts). A run is synchronous; the page cancels it by
// terminating the worker.

import { mountFiles, unmountFile } from "../shims/fs.js";
import type { FromWorker, Progress, ToWorker } from "../shared/protocol.js";
import { WORKLOAD_FILE } from "../shared/pageParams.js";
import { playgroundInfo } from "./info.js";
import { checkParams, runParams, RunFailed } from "./run.js";

interface WorkerScope {
  postMessage(m: FromWorker): void;
  onmessage: ((ev: { data: ToWorker }) => void) | null;
}
declare const self: WorkerScope;

function mountSpec(yaml: string | null): void {
  if (yaml === null) unmountFile(WORKLOAD_FILE);
  else mountFiles({ [WORKLOAD_FILE]: { text: yaml } });
}

/** Progress messages at most every 50 ms of wall time. */
function throttled(id: number): (p: Progress) => void {
  let last = 0;
  return (progress) => {
    const now = performance.now();
    if (now - last < 50) return;
    last = now;
    self.postMessage({ type: "progress", id, progress });
  };
}

async function handle(m: ToWorker): Promise<void> {
  switch (m.type) {
    case "init":
      mountFiles(m.data);
      self.postMessage({ type: "info", info: playgroundInfo() });
      return;
    case "check":
      try {
        self.postMessage({ type: "checked", id: m.id, checked: await checkParams(m.params, mountSpec) });
      } catch (e) {
        const errors = [{ field: "", message: `internal error: ${e instanceof Error ? e.message : String(e)}` }];
        self.postMessage({ type: "checked", id: m.id, checked: { errors, command: "", workloadYaml: "" } });
      }
      return;
    case "run":
      try {
        const result = await runParams(m.params, m.detail, mountSpec, throttled(m.id));
        self.postMessage({ type: "result", id: m.id, result });
      } catch (e) {
        const errors =
          e instanceof RunFailed
            ? e.errors
            : [{ field: "", message: `internal error: ${e instanceof Error ? e.message : String(e)}` }];
        self.postMessage({ type: "failed", id: m.id, errors });
      }
      return;
  }
}

// Messages are handled one at a time, in order.
let queue = Promise.resolve();
self.onmessage = (ev) => {
  queue = queue.then(() => handle(ev.data)).catch((e: unknown) => console.error(e));
};

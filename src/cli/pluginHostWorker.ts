// The thread that runs a command with plugins (started by pluginHost.ts): the command line as
// usual, its output and stderr lines sent to the starting thread, and what plugin code can do to
// a whole process (exit it, leave a rejection unhandled) reported to that thread instead.

import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { parentPort, workerData } from "node:worker_threads";
import type * as MainModule from "./main.js";
import type { HostMessage, HostData } from "./pluginHostProtocol.js";

const modules = new URL("./main.js", import.meta.url);

function current(bundle: URL): boolean {
  try {
    return fs.statSync(bundle).mtimeMs >= fs.statSync(modules).mtimeMs;
  } catch {
    return false;
  }
}

/** The command line as bin.ts loads it: a current bundle (with its code cache), else the modules. */
async function loadMain(): Promise<typeof MainModule> {
  const cjs = new URL("./main.bundle.cjs", import.meta.url);
  if (process.features.require_module && current(cjs)) {
    const { loadCjsBundle, codeCachePath, readCodeCache } = await import("./bundleLoader.js");
    const file = fileURLToPath(cjs);
    let cache: Buffer | undefined;
    try {
      cache = readCodeCache(codeCachePath(file));
    } catch {
      // no cache: compiled as usual
    }
    return loadCjsBundle(file, cache).exports;
  }
  const esm = new URL("./main.bundle.js", import.meta.url);
  return (await import(current(esm) ? esm.href : modules.href)) as typeof MainModule;
}

function describe(e: unknown): { message: string; stack: string } {
  const message = e instanceof Error ? e.message : String(e);
  return { message: message.split("\n")[0] ?? "", stack: e instanceof Error ? (e.stack ?? "") : "" };
}

async function host(port: NonNullable<typeof parentPort>, data: HostData): Promise<void> {
  const send = (m: HostMessage): void => port.postMessage(m);
  const mod = await loadMain();
  mod.attachWatch(data.state, (id, file) => send({ kind: "plugin", id, file }));
  // A plugin's process.exit would end this thread only, with its status and no word: say who.
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    mod.recordPluginExit(typeof code === "number" ? code : Number(code ?? process.exitCode ?? 0) || 0);
    exit(code ?? undefined);
  }) as typeof process.exit;
  process.on("unhandledRejection", (reason) => {
    send({ kind: "rejection", ...describe(reason) });
    // Nothing more from this run: the host ends this thread.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  });
  const io = {
    stdout: (text: string) => send({ kind: "out", text }),
    stderrLine: (line: string) => send({ kind: "err", line }),
  };
  const code = await mod.main(data.argv, io);
  // Rejections left by the command's last steps are reported on the next turns of the loop.
  setImmediate(() => setImmediate(() => send({ kind: "done", code })));
}

if (parentPort !== null && (workerData as Partial<HostData> | null)?.pluginHost === true)
  await host(parentPort, workerData as HostData);

#!/usr/bin/env node
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type * as MainModule from "./main.js";

// A reader that goes away (`blis run … | head -1`) is not an error of ours: stop quietly, as
// command-line tools do, instead of dying with an unhandled EPIPE stack trace. Any other failed
// write (a full disk, `> /dev/full`) loses output: one line on stderr and exit status 1.
function writeFailed(stream: NodeJS.WriteStream, e: NodeJS.ErrnoException): never {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  const reason = e.code === "ENOSPC" ? "no space left on device" : e.message.split("\n")[0];
  if (stream === process.stdout) {
    try {
      fs.writeSync(2, `error: writing to stdout: ${reason}\n`);
    } catch {
      // stderr is gone too: the exit status still tells
    }
  }
  process.exit(1);
}
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (e: NodeJS.ErrnoException) => writeFailed(stream, e));

const modules = new URL("./main.js", import.meta.url);

/** Whether a bundle exists and is at least as new as the compiled modules (else a bare tsc ran since). */
function current(bundle: URL): boolean {
  try {
    return fs.statSync(bundle).mtimeMs >= fs.statSync(modules).mtimeMs;
  } catch {
    return false;
  }
}

/**
 * The command line (scripts/buildCliBundle.mjs): the CommonJS bundle with its code cache where this
 * Node can require() the ES-module-only packages that some commands use; else the ES module bundle,
 * which loads one file instead of hundreds; else the modules themselves.
 */
async function load(): Promise<typeof MainModule.main> {
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
    return loadCjsBundle(file, cache).main;
  }
  const esm = new URL("./main.bundle.js", import.meta.url);
  return ((await import(current(esm) ? esm.href : modules.href)) as typeof MainModule).main;
}

const main = await load();
process.exitCode = await main(process.argv.slice(2));
// A command's work is over when main resolves. Leave once stdout and stderr have taken the last
// writes rather than idle in the event loop, where a garbage collection begun during a long run
// would first finish (10–20 ms of a half-second run).
let unflushed = 2;
const flushed =
  (stream: NodeJS.WriteStream) =>
  (e?: Error | null): void => {
    if (e) writeFailed(stream, e as NodeJS.ErrnoException);
    if (--unflushed === 0) process.exit();
  };
process.stdout.write("", flushed(process.stdout));
process.stderr.write("", flushed(process.stderr));

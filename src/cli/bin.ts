#!/usr/bin/env node
import { main } from "./main.js";

// A reader that goes away (`blis run … | head -1`) is not an error of ours: stop quietly, as
// command-line tools do, instead of dying with an unhandled EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

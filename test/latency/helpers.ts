// Shared helpers for the latency tests.

import { fileURLToPath } from "node:url";
import { Logger } from "../../src/util/log.js";

/** The bundled data/ directory (compiled tests live in dist/test/latency). */
export const DATA_DIR = fileURLToPath(new URL("../../../data/", import.meta.url));

/** A logger that records every line at trace level and above. */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new Logger("trace", (l) => lines.push(l)), lines };
}

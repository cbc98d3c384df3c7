// Trace files for the tests: JSONL lines written to a fresh temporary directory.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Line {
  timestamp: number;
  input_length: number;
  output_length: number;
  hash_ids?: number[];
  session_id?: string;
  turn?: number;
}

/** Writes the lines (objects as JSON, strings as they are) to a new file; returns its path. */
export function traceFile(lines: readonly (Line | string)[], name = "trace.jsonl"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-mooncake-"));
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
  return file;
}

/** n consecutive integers from `from`. */
export const ids = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i);

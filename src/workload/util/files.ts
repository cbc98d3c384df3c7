// File reading with one-line, Go-like error details ("open <p>: no such file or directory"), through
// the size-limited reader of util/inputFile.ts.

import { readdirSync } from "node:fs";
import { DATA_FILE_LIMIT, errnoReason, InputFileError, readInputFile } from "../../util/inputFile.js";

export class FileReadError extends Error {}

/** Reads a regular file of at most `limit` bytes (default: the data-file limit). */
export function readTextFile(path: string, limit = DATA_FILE_LIMIT): string {
  try {
    return readInputFile(path, limit);
  } catch (err) {
    if (err instanceof InputFileError) throw new FileReadError(`open ${path}: ${err.reason}`);
    throw err;
  }
}

export function listDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch (err) {
    throw new FileReadError(`open ${path}: ${errnoReason(err)}`);
  }
}

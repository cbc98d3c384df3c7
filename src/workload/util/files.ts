// File reading with one-line, Go-like error details ("open <p>: no such file or directory").

import { readFileSync, readdirSync } from "node:fs";

function describe(op: string, path: string, err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const reason =
    code === "ENOENT"
      ? "no such file or directory"
      : code === "EACCES"
        ? "permission denied"
        : code === "EISDIR"
          ? "is a directory"
          : code === "ENOTDIR"
            ? "not a directory"
            : err instanceof Error
              ? err.message.split("\n")[0]!
              : String(err);
  return `${op} ${path}: ${reason}`;
}

export class FileReadError extends Error {}

export function readTextFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new FileReadError(describe("open", path, err));
  }
}

export function listDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch (err) {
    throw new FileReadError(describe("open", path, err));
  }
}

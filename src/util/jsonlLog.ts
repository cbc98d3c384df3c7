// An append-only JSON-lines file that survives being killed mid-write: every record is one line,
// fsynced as it is appended, and reading cuts off a torn last line so new records start clean.
// The resume logs of `blis sweep` and `blis optimize` are such files.

import fs from "node:fs";
import path from "node:path";
import { DATA_FILE_LIMIT, InputFileError, readInputBytes } from "./inputFile.js";
import { UserError } from "./errors.js";

export class JsonlLog<T> {
  private fd: number | null = null;

  /** `valid` tells a record of this log from any other JSON value. */
  constructor(
    readonly file: string,
    private readonly valid: (v: unknown) => v is T,
  ) {}

  /**
   * Every readable record in file order. Lines that do not parse or are not records are skipped;
   * everything after the last good line (a line torn by a kill, without its newline) is cut off.
   */
  load(): T[] {
    if (!fs.existsSync(this.file)) return [];
    let buf: Buffer;
    try {
      buf = readInputBytes(this.file, DATA_FILE_LIMIT);
    } catch (e) {
      throw new UserError(e instanceof InputFileError ? e.message : String(e));
    }
    const out: T[] = [];
    let goodEnd = 0;
    let pos = 0;
    while (pos < buf.length) {
      const nl = buf.indexOf(0x0a, pos);
      if (nl < 0) break;
      const line = buf.toString("utf8", pos, nl);
      pos = nl + 1;
      if (line.trim() !== "") {
        let v: unknown = null;
        try {
          v = JSON.parse(line);
        } catch {
          v = null;
        }
        if (!this.valid(v)) continue;
        out.push(v);
      }
      goodEnd = pos;
    }
    if (goodEnd < buf.length) fs.truncateSync(this.file, goodEnd);
    return out;
  }

  /** Appends one record as a line and fsyncs it (and, for a new file, its directory). Returns the line. */
  append(rec: T): string {
    const line = JSON.stringify(rec);
    if (this.fd === null) {
      const existed = fs.existsSync(this.file);
      this.fd = fs.openSync(this.file, "a");
      if (!existed) fsyncDir(path.dirname(this.file));
    }
    fs.writeSync(this.fd, line + "\n");
    fs.fsyncSync(this.fd);
    return line;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not supported on every platform; the file's own fsync still holds its data.
  }
}

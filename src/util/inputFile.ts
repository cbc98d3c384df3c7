// Reading input files with a size limit: only regular files are read, so a device, FIFO or
// directory given as an input fails at once instead of blocking or filling memory
// (README.md "Input and output files").

import fs from "node:fs";

const MIB = 1024 * 1024;
/** Limit of data files: trace CSVs, results JSON, datasets. */
export const DATA_FILE_LIMIT = 256 * MIB;
/** Limit of specification files: workload specs, plans, search spaces, bundles, headers. */
export const SPEC_FILE_LIMIT = 16 * MIB;

/** An input that cannot be read; `reason` is in words ("no such file or directory", …). */
export class InputFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    /** The errno code of a failed open or read ("ENOENT"), absent when the file's kind or size was refused. */
    readonly code?: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "InputFileError";
  }
}

/** The reason in words of a failed read: an InputFileError's reason, or an errno's. */
export function readFailure(err: unknown): string {
  return err instanceof InputFileError ? err.reason : errnoReason(err);
}

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The reason of a failed file-system call, in words. */
export function errnoReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOTDIR":
      return "not a directory";
    case "EROFS":
      return "read-only file system";
    case "ENOSPC":
      return "no space left on device";
    case "ELOOP":
      return "too many levels of symbolic links";
    default:
      return err instanceof Error ? err.message.split("\n")[0]! : String(err);
  }
}

/** What a non-regular file is, for error messages. */
export function fileKind(st: fs.Stats): string {
  if (st.isDirectory()) return "directory";
  if (st.isCharacterDevice()) return "character device";
  if (st.isBlockDevice()) return "block device";
  if (st.isFIFO()) return "FIFO";
  if (st.isSocket()) return "socket";
  return "regular file";
}

function sizeText(bytes: number): string {
  if (bytes < MIB) return `${bytes} bytes`;
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${(bytes / MIB).toFixed(1)} MiB`;
}

/** Null when `st` may be read under `limit`, else the reason. */
function unreadable(st: fs.Stats, limit: number): string | null {
  if (st.isDirectory()) return "is a directory";
  if (!st.isFile()) return `not a regular file (${fileKind(st)})`;
  if (st.size > limit) return `file too large (${sizeText(st.size)}; the limit is ${sizeText(limit)})`;
  return null;
}

/**
 * Reads a regular file of at most `limit` bytes as UTF-8. The file is opened without blocking
 * (a FIFO cannot stall the open), then checked; throws InputFileError.
 */
export function readInputFile(file: string, limit: number): string {
  return readInputBytes(file, limit).toString("utf8");
}

/** Reads a regular file of at most `limit` bytes, as readInputFile does, without decoding it. */
export function readInputBytes(file: string, limit: number): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    throw new InputFileError(file, errnoReason(e), errnoCode(e));
  }
  try {
    const st = fs.fstatSync(fd);
    const why = unreadable(st, limit);
    if (why !== null) throw new InputFileError(file, why);
    // Files whose size the kernel reports as 0 (procfs) are only known once read: read no more than the limit.
    const bytes = readAtMost(fd, limit + 1, st.size + 1);
    if (bytes.length > limit) throw new InputFileError(file, `file too large (the limit is ${sizeText(limit)})`);
    return bytes;
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    throw new InputFileError(file, errnoReason(e), errnoCode(e));
  } finally {
    fs.closeSync(fd);
  }
}

/** The first `max` bytes of the open file `fd` (fewer at its end), read in chunks of at least `chunkSize`. */
function readAtMost(fd: number, max: number, chunkSize: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < max) {
    const chunk = Buffer.allocUnsafe(Math.min(max - total, Math.max(chunkSize, 64 * 1024)));
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    total += n;
  }
  return Buffer.concat(chunks, total);
}

/**
 * Checks, without reading it, that `file` is a regular file of at most `limit` bytes (following
 * symbolic links): for files another reader opens, such as modules given to import().
 * Throws InputFileError.
 */
export function checkInputFile(file: string, limit: number): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw new InputFileError(file, errnoReason(e), errnoCode(e));
  }
  const why = unreadable(st, limit);
  if (why !== null) throw new InputFileError(file, why);
}

/**
 * Null when `file` is missing (left to the reader, whose message names what it expected) or is a
 * regular file of at most `limit` bytes; otherwise the reason it cannot be an input.
 */
export function inputFileProblem(file: string, limit: number): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  return unreadable(st, limit);
}

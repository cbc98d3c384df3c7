// `node:fs` for the browser build: an in-memory, read-mostly file system. The page mounts the
// bundled data (data/, dist/data/) under the virtual package root and a pasted workload spec
// under the working directory; the library's synchronous reads then work unchanged.

import { dirname, resolve } from "./path.js";

interface VFile {
  text: string;
  mtimeMs: number;
}

/** A file for mountFiles: its text and modification time (the data cache checks it). */
export interface MountedFile {
  text: string;
  mtimeMs?: number;
}

const files = new Map<string, VFile>();
const dirs = new Set<string>(["/"]);
const fds = new Map<number, string>();
let nextFd = 3;

function errno(code: string, text: string, call: string, p: string): Error {
  return Object.assign(new Error(`${code}: ${text}, ${call} '${p}'`), { code, syscall: call, path: p });
}

function addDirs(p: string): void {
  for (let d = dirname(p); !dirs.has(d); d = dirname(d)) dirs.add(d);
}

/** Adds (or replaces) files; paths are resolved against the working directory. */
export function mountFiles(entries: Record<string, MountedFile>): void {
  for (const [p, f] of Object.entries(entries)) {
    const full = resolve(p);
    files.set(full, { text: f.text, mtimeMs: f.mtimeMs ?? 0 });
    addDirs(full);
  }
}

/** Removes a file mounted earlier (a workload spec that is no longer pasted). */
export function unmountFile(p: string): void {
  files.delete(resolve(p));
}

const byteLength = (s: string): number => new TextEncoder().encode(s).length;

class Stats {
  constructor(
    private readonly dir: boolean,
    readonly size: number,
    readonly mtimeMs: number,
  ) {}
  isFile(): boolean {
    return !this.dir;
  }
  isDirectory(): boolean {
    return this.dir;
  }
  isCharacterDevice(): boolean {
    return false;
  }
  isBlockDevice(): boolean {
    return false;
  }
  isFIFO(): boolean {
    return false;
  }
  isSocket(): boolean {
    return false;
  }
  isSymbolicLink(): boolean {
    return false;
  }
}

export function statSync(p: string): Stats {
  const full = resolve(p);
  const f = files.get(full);
  if (f !== undefined) return new Stats(false, byteLength(f.text), f.mtimeMs);
  if (dirs.has(full)) return new Stats(true, 0, 0);
  throw errno("ENOENT", "no such file or directory", "stat", p);
}

export function existsSync(p: string): boolean {
  const full = resolve(p);
  return files.has(full) || dirs.has(full);
}

export function readFileSync(p: string | number, _enc?: unknown): string {
  const name = typeof p === "number" ? fds.get(p) : p;
  if (name === undefined) throw errno("EBADF", "bad file descriptor", "read", String(p));
  const full = resolve(name);
  const f = files.get(full);
  if (f !== undefined) return f.text;
  if (dirs.has(full)) throw errno("EISDIR", "illegal operation on a directory", "read", name);
  throw errno("ENOENT", "no such file or directory", "open", name);
}

export function openSync(p: string, _flags?: number): number {
  if (!existsSync(p)) throw errno("ENOENT", "no such file or directory", "open", p);
  const fd = nextFd++;
  fds.set(fd, p);
  return fd;
}

export function fstatSync(fd: number): Stats {
  const p = fds.get(fd);
  if (p === undefined) throw errno("EBADF", "bad file descriptor", "fstat", String(fd));
  return statSync(p);
}

export function closeSync(fd: number): void {
  fds.delete(fd);
  positions.delete(fd);
}

const positions = new Map<number, { bytes: Uint8Array; at: number }>();

/** Reads the open file's UTF-8 bytes from where the last read stopped (the guarded file reader's reads). */
export function readSync(fd: number, buf: Uint8Array, offset: number, length: number, _position: null): number {
  let cur = positions.get(fd);
  if (cur === undefined) {
    cur = { bytes: new TextEncoder().encode(readFileSync(fd)), at: 0 };
    positions.set(fd, cur);
  }
  const n = Math.max(0, Math.min(length, cur.bytes.length - cur.at));
  buf.set(cur.bytes.subarray(cur.at, cur.at + n), offset);
  cur.at += n;
  return n;
}

interface Dirent {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}

export function readdirSync(p: string, opts?: { withFileTypes?: boolean }): (string | Dirent)[] {
  const full = resolve(p);
  if (!dirs.has(full)) throw errno("ENOENT", "no such file or directory", "scandir", p);
  const prefix = full === "/" ? "/" : full + "/";
  const names = new Map<string, boolean>();
  for (const d of dirs)
    if (d.startsWith(prefix) && d !== full && !d.slice(prefix.length).includes("/"))
      names.set(d.slice(prefix.length), true);
  for (const f of files.keys())
    if (f.startsWith(prefix) && !f.slice(prefix.length).includes("/")) names.set(f.slice(prefix.length), false);
  const sorted = [...names.keys()].sort();
  if (opts?.withFileTypes !== true) return sorted;
  return sorted.map((name) => ({
    name,
    isDirectory: () => names.get(name) === true,
    isFile: () => names.get(name) === false,
  }));
}

function readOnly(call: string): (p: string) => never {
  return (p) => {
    throw errno("EROFS", "read-only file system", call, p);
  };
}

export const writeFileSync = readOnly("open");
export const mkdirSync = readOnly("mkdir");
export const renameSync = readOnly("rename");
export const unlinkSync = readOnly("unlink");

export const constants = { O_RDONLY: 0, O_NONBLOCK: 2048 };

export default {
  statSync,
  existsSync,
  readFileSync,
  openSync,
  fstatSync,
  closeSync,
  readSync,
  readdirSync,
  writeFileSync,
  mkdirSync,
  renameSync,
  unlinkSync,
  constants,
};

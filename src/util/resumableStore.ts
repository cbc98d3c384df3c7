// A resumable output directory: an identity file (which plan or space the results belong to), an
// append-only resume log of finished results, and result files rewritten atomically. A rerun with
// the same identity picks up the logged results; another identity is refused unless restarting.
// `blis sweep` (experiment/store.ts) and `blis optimize` (optimize/store.ts) specialize it.

import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "./atomicWrite.js";
import { JsonlLog } from "./jsonlLog.js";
import { makeDirs } from "./makeDirs.js";
import { DATA_FILE_LIMIT, inputFileProblem, readInputFile, SPEC_FILE_LIMIT } from "./inputFile.js";

/** The part of an identity file every store has: files of another format are not resumed. */
export interface StoreState {
  format: string;
}

/** What is fixed for one kind of store. */
export interface StoreLayout<R> {
  /** The identity file (plan.json, space.json). */
  stateFile: string;
  /** The resume log (one fsynced JSON line per finished result). */
  logFile: string;
  /** The identity file's `format`. */
  format: string;
  /** Tells a record of the log from any other JSON value. */
  isRecord: (v: unknown) => v is R;
  /** The user error thrown for a directory that cannot be used. */
  error: (message: string) => Error;
  /** Nouns of the messages: "removed the previous <results>", "do not come from this <origin>". */
  results: string;
  origin: string;
}

/** How one run opens its directory. */
export interface OpenRequest<S extends StoreState> {
  /** Discard the previous results (`--restart`). */
  restart: boolean;
  /** Removes what earlier runs wrote; `old` is the previous identity file when it was readable. */
  clear: (old: S | null) => void;
  /** Accepts the previous identity (of this format) or throws. Returns notes for stderr. */
  resume: (old: S) => string[];
  /** The identity file to write, once the directory is cleared or accepted. */
  state: () => S;
}

/** Creates `dir` if needed and fails with the layout's error when it cannot be written. */
function ensureWritableDir<R>(dir: string, layout: StoreLayout<R>): void {
  try {
    makeDirs(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    throw layout.error(
      `${dir}: cannot use as the output directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
}

/** The identity file, or null when it is missing or does not parse (its shape is checked by `format`). */
function readState<S extends StoreState>(file: string): S | null {
  if (!fs.existsSync(file)) return null;
  try {
    return JSON.parse(readInputFile(file, SPEC_FILE_LIMIT)) as S;
  } catch {
    return null;
  }
}

/**
 * Makes `dir` ready for a run: clears it (restart), accepts its previous results, or refuses a
 * directory whose results come from something else. Writes the identity file. Returns notes for stderr.
 */
export function prepareStoreDir<R, S extends StoreState>(
  dir: string,
  layout: StoreLayout<R>,
  req: OpenRequest<S>,
): string[] {
  const notes: string[] = [];
  ensureWritableDir(dir, layout);
  const statePath = path.join(dir, layout.stateFile);
  // A device or FIFO in place of a store file would block or fill memory when read or appended to.
  for (const [file, limit] of [
    [statePath, SPEC_FILE_LIMIT],
    [path.join(dir, layout.logFile), DATA_FILE_LIMIT],
  ] as const) {
    const why = inputFileProblem(file, limit);
    if (why !== null) throw layout.error(`${file}: ${why}`);
  }
  const old = readState<S>(statePath);
  const hasLog = fs.existsSync(path.join(dir, layout.logFile));
  if (req.restart) {
    if (old !== null || hasLog) notes.push(`--restart: removed the previous ${layout.results} in ${dir}`);
    req.clear(old);
  } else if (old !== null && old.format === layout.format) {
    notes.push(...req.resume(old));
  } else if (old !== null || hasLog) {
    throw layout.error(
      `${dir}: holds results that do not come from this ${layout.origin} (no valid ${layout.stateFile}); rerun with --restart to discard them, or use another --out`,
    );
  }
  writeFileAtomic(statePath, JSON.stringify(req.state(), null, 2) + "\n");
  return notes;
}

/** An opened store directory: its resume log and its result files. */
export class ResumableStore<R> {
  private readonly log: JsonlLog<R>;

  protected constructor(
    readonly dir: string,
    layout: StoreLayout<R>,
  ) {
    this.log = new JsonlLog(path.join(dir, layout.logFile), layout.isRecord);
  }

  /** The logged records in file order (see JsonlLog for torn and unreadable lines). */
  protected loadLog(): R[] {
    return this.log.load();
  }

  /** Appends one record as a JSON line and fsyncs it. Returns the line. */
  protected appendLog(rec: R): string {
    return this.log.append(rec);
  }

  /** Writes a result file (path relative to the directory) atomically, creating its folder. */
  writeFile(rel: string, data: string): void {
    const full = path.join(this.dir, rel);
    makeDirs(path.dirname(full));
    writeFileAtomic(full, data);
  }

  close(): void {
    this.log.close();
  }
}

// Output paths are checked before any work starts, so a long run never ends in a failed write
// (README.md "Input and output files").

import fs from "node:fs";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { errnoReason, fileKind } from "../util/inputFile.js";

/**
 * Null when files can be created in the existing directory `dir`, else the reason. Creates and
 * removes a temporary directory: permission bits alone miss read-only mounts, procfs and root.
 */
export function creationProblem(dir: string): string | null {
  let probe: string;
  try {
    probe = fs.mkdtempSync(path.join(dir, ".blis-check-"));
  } catch (e) {
    return errnoReason(e);
  }
  try {
    fs.rmdirSync(probe);
  } catch {
    // an empty directory left behind is harmless
  }
  return null;
}

/** The nearest existing ancestor of `dir` (absolute) with its status, or null when none can be read. */
function existingAncestor(dir: string): { dir: string; st: fs.Stats } | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      return { dir: d, st: fs.statSync(d) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || path.dirname(d) === d) return code === "ENOTDIR" ? existingFile(d) : null;
    }
  }
}

/** The first existing non-directory on the way to `p` (for "under a regular file"). */
function existingFile(p: string): { dir: string; st: fs.Stats } | null {
  for (let d = path.dirname(p); path.dirname(d) !== d; d = path.dirname(d)) {
    try {
      const st = fs.statSync(d);
      if (!st.isDirectory()) return { dir: d, st };
    } catch {
      // keep going up
    }
  }
  return null;
}

/** Throws a one-line UserError naming the flag unless `file` can be created or replaced. */
export function checkOutputPath(flag: string, file: string): void {
  if (file === "") throw new UserError(`${flag}: empty path`);
  // path.resolve drops a trailing separator, which would hide that the path names a directory.
  if (file.endsWith("/") || file.endsWith(path.sep))
    throw new UserError(`${flag} ${file}: names a directory, not a file`);
  const dir = path.dirname(path.resolve(file));
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    const up = (e as NodeJS.ErrnoException).code === "ENOTDIR" ? existingFile(dir) : null;
    if (up !== null) throw new UserError(`${flag} ${file}: ${up.dir} is not a directory`);
    // A missing directory is created when the file is written, if it can be.
    checkOutputDir(flag, dir, file);
    return;
  }
  if (!st.isDirectory()) throw new UserError(`${flag} ${file}: ${dir} is not a directory`);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    throw new UserError(`${flag} ${file}: directory ${dir} is not writable`);
  }
  let target: fs.Stats | null = null;
  try {
    target = fs.statSync(file);
  } catch {
    // a new file
  }
  if (target?.isDirectory() === true) throw new UserError(`${flag} ${file}: is a directory`);
  if (target !== null && !target.isFile())
    throw new UserError(`${flag} ${file}: not a regular file (${fileKind(target)})`);
  const why = creationProblem(dir);
  if (why !== null) throw new UserError(`${flag} ${file}: cannot create files in ${dir}: ${why}`);
}

/**
 * Throws a one-line UserError naming the flag unless `dir` is a directory that files can be
 * created in, or can be created (with its missing parents). `shown` is the path in messages.
 */
export function checkOutputDir(flag: string, dir: string, shown = dir): void {
  if (dir === "") throw new UserError(`${flag}: empty path`);
  const up = existingAncestor(dir);
  if (up === null)
    throw new UserError(`${flag} ${shown}: cannot create ${path.resolve(dir)}: no such file or directory`);
  const self = up.dir === path.resolve(dir);
  if (!up.st.isDirectory()) {
    throw new UserError(
      self && shown === dir ? `${flag} ${shown}: not a directory` : `${flag} ${shown}: ${up.dir} is not a directory`,
    );
  }
  const why = creationProblem(up.dir);
  if (why === null) return;
  const what = self ? "files" : "directories";
  throw new UserError(`${flag} ${shown}: cannot create ${what} in ${up.dir}: ${why}`);
}

/**
 * For outputs whose directory is created when missing (reports): checks each file when the
 * directory exists, else that the directory can be created.
 */
export function checkOutputFiles(flag: string, files: readonly string[]): void {
  for (const file of files) {
    if (file === "") throw new UserError(`${flag}: empty path`);
    const dir = path.dirname(path.resolve(file));
    if (fs.existsSync(dir)) checkOutputPath(flag, file);
    else checkOutputDir(flag, dir, file);
  }
}

/** The reason of a failed write in words. */
function writeReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === "ENOENT" ? "no such directory" : errnoReason(e);
}

/** Writes an output file; a failure is a UserError naming the flag, the path and the reason. */
export function writeOutput(flag: string, file: string, data: string, write: (f: string, d: string) => void): void {
  try {
    write(file, data);
  } catch (e) {
    throw new UserError(`${flag}: cannot write ${file}: ${writeReason(e)}`);
  }
}

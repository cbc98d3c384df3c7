// Output paths are checked before any work starts, so a long run never ends in a failed write.

import fs from "node:fs";
import path from "node:path";
import { UserError } from "../util/errors.js";

/** Throws a one-line UserError naming the flag unless `file` can be created or replaced. */
export function checkOutputPath(flag: string, file: string): void {
  if (file === "") throw new UserError(`${flag}: empty path`);
  const dir = path.dirname(path.resolve(file));
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new UserError(`${flag} ${file}: directory ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new UserError(`${flag} ${file}: ${dir} is not a directory`);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    throw new UserError(`${flag} ${file}: directory ${dir} is not writable`);
  }
  try {
    if (fs.statSync(file).isDirectory()) throw new UserError(`${flag} ${file}: is a directory`);
  } catch (e) {
    if (e instanceof UserError) throw e;
  }
}

/** Writes an output file; a failure is a UserError naming the flag, the path and the reason. */
export function writeOutput(flag: string, file: string, data: string, write: (f: string, d: string) => void): void {
  try {
    write(file, data);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOSPC"
        ? "no space left on device"
        : code === "EACCES"
          ? "permission denied"
          : code === "EROFS"
            ? "read-only file system"
            : (e as Error).message;
    throw new UserError(`${flag}: cannot write ${file}: ${reason}`);
  }
}

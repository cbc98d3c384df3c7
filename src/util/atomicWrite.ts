import fs from "node:fs";
import path from "node:path";
import { makeDirs } from "./makeDirs.js";

/**
 * Writes a file via a temporary sibling and a rename, so readers never see half a file. Missing
 * directories on the way are created (README.md "Input and output files").
 */
export function writeFileAtomic(file: string, data: string): void {
  const dir = path.dirname(path.resolve(file));
  makeDirs(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean up
    }
    throw e;
  }
}

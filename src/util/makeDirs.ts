import fs from "node:fs";
import path from "node:path";

/**
 * Creates `dir` and its missing parents one level at a time. Unlike a recursive mkdir, it fails
 * at once where a parent exists but refuses new entries (procfs answers ENOENT there, which a
 * recursive mkdir retries without end).
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

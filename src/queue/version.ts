// What a worker must share with the coordinator to run a job identically: the package version and
// a fingerprint of the compiled simulator and its bundled data (model configs, coefficients,
// defaults). Two checkouts of one commit, built the same way, agree; any code or data change does not.

import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { PACKAGE_ROOT } from "../util/paths.js";
import { DATA_FILE_LIMIT, readInputBytes, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

let cached: string | null = null;

/** `<package version>+<12 hex digits>`. */
export function codeVersion(): string {
  if (cached !== null) return cached;
  const h = createHash("sha256");
  // The bundled command line is made from these modules, so the modules alone identify the code.
  const modules = listFiles(path.join(PACKAGE_ROOT, "dist", "src")).filter(
    (f) => f.endsWith(".js") && !/\.(bundle|chunk)\.js$/.test(f),
  );
  for (const f of [...modules, ...listFiles(path.join(PACKAGE_ROOT, "data"))]) {
    h.update(path.relative(PACKAGE_ROOT, f).split(path.sep).join("/") + "\0");
    h.update(readInputBytes(f, DATA_FILE_LIMIT));
  }
  cached = `${packageVersion()}+${h.digest("hex").slice(0, 12)}`;
  return cached;
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readInputFile(path.join(PACKAGE_ROOT, "package.json"), SPEC_FILE_LIMIT)) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

/** Files under `dir`, sorted by path so the fingerprint does not depend on directory order. */
function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

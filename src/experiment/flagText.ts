// Flag values written in YAML files (sweep plans, search spaces): converted to typed run options
// exactly as the CLI parses flag text, with file paths taken relative to the YAML file.

import fs from "node:fs";
import path from "node:path";
import type { FlagDef } from "../cli/runFlags.js";
import { flagParser } from "../cli/parseFlagValue.js";

/** Flags whose value is a file or directory: resolved against the YAML file's directory. */
export const PATH_FLAG_KEYS: ReadonlySet<string> = new Set<string>([
  "workloadSpec",
  "workloadTracesFilepath",
  "replayTrace",
  "replayTraceData",
  "policyConfig",
  "defaultsFilepath",
  "modelConfigFolder",
  "hardwareConfig",
  "plugin",
]);

export function resolvePath(p: string, baseDir: string): string {
  return p === "" || path.isAbsolute(p) ? p : path.resolve(baseDir, p);
}

/**
 * Parses one flag's text. `fail` reports a problem (it must throw, naming the YAML item);
 * a workload spec that does not exist is refused here rather than at run time.
 */
export function flagFromText(def: FlagDef, text: string, baseDir: string, fail: (msg: string) => never): unknown {
  let v: unknown;
  try {
    v = flagParser(def.type, def.flag)(text, undefined);
  } catch (e) {
    fail(`invalid value for ${def.flag}: ${(e as Error).message.replace(/\.$/, "")}`);
  }
  if (PATH_FLAG_KEYS.has(def.key) && typeof v === "string" && v !== "") {
    v = resolvePath(v, baseDir);
    if (def.key === "workloadSpec" && !fs.existsSync(v as string)) fail(`workload spec ${v as string} does not exist`);
  }
  return v;
}

/** One value of a repeatable flag (--plugin, --plugin-option): only file flags are paths. */
export function repeatedValue(def: FlagDef, text: string, baseDir: string): string {
  return PATH_FLAG_KEYS.has(def.key) ? resolvePath(text, baseDir) : text;
}

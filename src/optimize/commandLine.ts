// The best configuration as a `blis run` command line: run options as flag words, with paths
// shown relative to the working directory and the workload where the command can find it.

import path from "node:path";
import { runFlags } from "../config/runFlags.js";
import type { RunInput } from "../config/runOptions.js";
import { serializeWorkloadSpec, type WorkloadSpec } from "../workload/index.js";
import type { OptimizeSpace } from "./space.js";
import { PATH_FLAG_KEYS } from "../experiment/configYaml.js";

export function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./,:=+@%-]+$/.test(s)) return s;
  if (!/["$`\\!]/.test(s)) return `"${s}"`;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `--flag value` words of run options (run-flag order), skipping the in-memory workload spec. */
export function flagWords(input: RunInput, skip: ReadonlySet<string> = new Set()): string[] {
  const words: string[] = [];
  const inp = input as Record<string, unknown>;
  for (const f of runFlags()) {
    const v = inp[f.key];
    if (v === undefined || skip.has(f.key)) continue;
    if (f.key === "horizon" && v === Infinity) continue;
    switch (f.type) {
      case "bool":
        words.push(v === true ? f.flag : `${f.flag}=false`);
        break;
      case "strings":
        for (const s of v as string[]) words.push(f.flag, shellQuote(displayPath(f.key, s)));
        break;
      case "floats":
        words.push(f.flag, (v as number[]).map(String).join(","));
        break;
      default:
        words.push(f.flag, shellQuote(displayPath(f.key, String(v))));
    }
  }
  return words;
}

/** Path flags, resolved against the space file's directory; the report path too. */
const PATH_KEYS = new Set([...PATH_FLAG_KEYS, "report"]);

/** Absolute paths from the space are shown relative to the working directory. */
export function displayPath(key: string, v: string): string {
  if (!PATH_KEYS.has(key) || !path.isAbsolute(v)) return v;
  const rel = path.relative(process.cwd(), v);
  return rel === "" ? "." : rel.startsWith("..") ? v : rel;
}

/** Where the best command finds the workload: the space's spec file, or workload.yaml in --out. */
export function workloadFlag(
  space: OptimizeSpace,
  outDir: string,
): { flagPath: string | null; writeInline: string | null } {
  const spec = (space.base as Record<string, unknown>)["workloadSpecObject"] as WorkloadSpec | undefined;
  if (spec === undefined) return { flagPath: null, writeInline: null };
  if (space.specFile !== null) return { flagPath: space.specFile, writeInline: null };
  return { flagPath: path.join(outDir, "workload.yaml"), writeInline: serializeWorkloadSpec(spec) };
}

export function commandLine(
  input: RunInput,
  specPath: string | null,
  extra: string[] = [],
  skip: ReadonlySet<string> = new Set(),
): string {
  const inp: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  delete inp["workloadSpecObject"];
  if (specPath !== null) inp["workloadSpec"] = specPath;
  return ["blis", "run", ...flagWords(inp as RunInput, skip), ...extra].join(" ");
}

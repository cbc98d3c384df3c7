// Helpers of the oracle: reading a flag's final value from a command line, deciding whether an
// error line names the bad item, and snapshots of a case directory (nothing half-written).

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { runFlags } from "../../src/config/runFlags.js";
import type { Family, FuzzCase } from "./case.js";

/** How an option takes its value: always the next argument, the next unless it looks like an option, or none. */
export type Arity = "value" | "optional" | "none";

const RUN_ARITY = new Map<string, Arity>(runFlags().map((f) => [f.flag, f.type === "bool" ? "optional" : "value"]));
const ARITY: Record<Family, Map<string, Arity>> = {
  run: RUN_ARITY,
  spec: RUN_ARITY,
  bundle: RUN_ARITY,
  sweep: new Map<string, Arity>([
    ["--plan", "value"],
    ["--out", "value"],
    ["--jobs", "value"],
    ["--format", "value"],
  ]),
  optimize: new Map<string, Arity>([
    ["--out", "value"],
    ["--jobs", "value"],
  ]),
  files: RUN_ARITY,
  plugin: RUN_ARITY,
};

/**
 * The options a command line sets, as commander reads them: the last value of each, `--flag=value`
 * or `--flag value` (the next argument is the value even when it starts with a dash), "true" for a
 * switch without a value.
 */
export function optionValues(family: Family, argv: string[]): Map<string, string> {
  const arity = ARITY[family];
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    const eq = a.indexOf("=");
    const name = a.startsWith("--") && eq > 0 ? a.slice(0, eq) : a;
    const kind = arity.get(name) ?? (a.startsWith("--") ? "none" : undefined);
    if (kind === undefined) continue;
    if (name !== a) out.set(name, a.slice(eq + 1));
    else if (kind === "value") {
      if (i + 1 < argv.length) out.set(name, argv[++i]!);
    } else if (kind === "optional" && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("-"))
      out.set(name, argv[++i]!);
    else out.set(name, "true");
  }
  return out;
}

/** Whether a switch's value means true (`--flag`, `--flag true`, `--flag=1`, ...). */
export function isTrue(value: string | undefined): boolean {
  return value !== undefined && ["1", "t", "true"].includes(value.toLowerCase());
}

const words = (s: string): string =>
  ` ${s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()} `;

/** Position of the bad item in a file: `line 3`, `plan.yaml:3:5`. */
const POSITION = /\bline \d+|:\d+:\d+\b/;

/**
 * Whether the error line names something the case gave: a flag of the command line (with or
 * without dashes, in words: "prompt tokens stdev"), a key of one of its files, a file it names, or a
 * position in a file.
 */
export function namesBadItem(line: string, c: FuzzCase, argv: string[], dir: string): boolean {
  if (POSITION.test(line)) return true;
  const text = words(line.replace(/^error: /, ""));
  const options = argv.filter((a) => a.startsWith("-"));
  if (options.some((a) => a.length > 1 && line.includes(a))) return true;
  const names = options.map((a) => a.replace(/^-+/, "").replace(/=.*$/s, ""));
  for (const n of [...names, ...c.keys]) {
    const w = words(n);
    if (w.trim() !== "" && text.includes(w)) return true;
  }
  // Files and values the command line gave (not the command's own name), `--flag=FILE` included.
  const inline = argv.filter((a) => a.startsWith("--") && a.includes("=")).map((a) => a.slice(a.indexOf("=") + 1));
  const paths = [
    ...[...argv.slice(1), ...inline].filter((a) => a.length > 2 && !a.startsWith("-")),
    ...c.files.map((f) => path.join(dir, f.name)),
  ];
  if (
    paths.some(
      (p) => p !== "" && (line.includes(p) || (path.basename(p).length > 2 && line.includes(path.basename(p)))),
    )
  )
    return true;
  // A quoted name that one of the case's files holds: a key of a file the case did not generate.
  const quoted = [...line.matchAll(/"([^"]+)"|'([^']+)'/g)].map((m) => m[1] ?? m[2] ?? "");
  if (quoted.some((q) => q.trim() !== "" && c.files.some((f) => f.content.includes(q)))) return true;
  // Or an argument of the command line, or an item of a list it gives (`--fitness-weights x:1`),
  // quoted exactly: a stray "-", an empty argument "", an unknown key "x".
  const given = new Set([...argv, ...argv.flatMap((a) => a.split(/[=,:]/).filter((p) => p.trim() !== ""))]);
  return [...line.matchAll(/"(?:[^"\\]|\\.)*"/g)].some((m) => given.has(jsonString(m[0])));
}

function jsonString(literal: string): string {
  try {
    return String(JSON.parse(literal));
  } catch {
    return literal.slice(1, -1);
  }
}

/** Path (relative to the case directory) → "dir" or a hash of the file's content. */
export type DirSnapshot = Map<string, string>;

export function snapshot(dir: string): DirSnapshot {
  const out: DirSnapshot = new Map();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) {
        out.set(r, "dir");
        walk(r);
      } else {
        const content = e.isFile() ? fs.readFileSync(path.join(dir, r)) : Buffer.from(`special:${e.name}`);
        out.set(r, crypto.createHash("sha1").update(content).digest("hex"));
      }
    }
  };
  walk("");
  return out;
}

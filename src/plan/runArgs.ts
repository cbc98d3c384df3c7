// The `blis run` command line of a point: what re-runs one of its simulations (add --seed).

import { runFlags } from "../config/runFlags.js";
import type { RunInput } from "../config/runOptions.js";

/** Flags of `input` in schema order; in-memory workload objects have no flag and are left out. */
export function runArgs(input: RunInput): string[] {
  const out: string[] = [];
  const values = input as Record<string, unknown>;
  for (const f of runFlags()) {
    const v = values[f.key];
    if (v === undefined || f.key === "seed") continue;
    if (f.type === "bool") out.push(f.flag, v === true ? "true" : "false");
    else if (f.type === "strings" && Array.isArray(v)) for (const x of v) out.push(f.flag, String(x));
    else if (Array.isArray(v)) out.push(f.flag, v.map(String).join(","));
    else out.push(f.flag, String(v));
  }
  return out;
}

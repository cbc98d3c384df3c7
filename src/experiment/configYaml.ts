// The parts of sweep plans and search spaces that are the same: run flags written as YAML
// (converted exactly as the CLI parses flag text, file paths taken relative to the file), the
// base workload spec (a path or an inline mapping), and metric names.

import fs from "node:fs";
import path from "node:path";
import type { Node } from "yaml";
import { runFlags, type AnyFlagDef } from "../config/runFlags.js";
import { flagParser } from "../config/parseFlagValue.js";
import { didYouMean } from "../util/didYouMean.js";
import type { YamlSource } from "../util/yamlSource.js";
import { loadWorkloadSpec, parseWorkloadSpec, type WorkloadSpec } from "../workload/index.js";
import { fixedMetricNames, metricProblem } from "./metrics.js";

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
  "loraConfig",
]);

/** Words that differ between the file kinds in flag errors. */
export interface FileKind {
  /** `a plan`, `a search space`. */
  readonly name: string;
  /** Where a file of this kind takes its seeds from. */
  readonly seeds: string;
  /** What keeps the metrics of its runs. */
  readonly log: string;
}

export const PLAN_KIND: FileKind = {
  name: "a plan",
  seeds: "the plan's seeds list",
  log: "runs.jsonl keeps each run's full metrics",
};
export const SPACE_KIND: FileKind = {
  name: "a search space",
  seeds: "the space's seeds list",
  log: "evaluations.jsonl keeps the metrics the search uses",
};

/** Every run flag by bare name, registered policies' and features' flags included. */
function flagsByName(): Map<string, AnyFlagDef> {
  return new Map(runFlags().map((f) => [f.flag.slice(2), f]));
}

/** A flag name from the file (`num-instances`, also `--num-instances`) → its run flag, or a reason. */
export function lookupFlag(name: string, kind: FileKind = PLAN_KIND): AnyFlagDef | string {
  const bare = name.replace(/^--?/, "");
  const forbidden: Record<string, string> = {
    seed: `seeds come from ${kind.seeds}`,
    "results-path": `every run would overwrite the same file; ${kind.log}`,
  };
  const why = forbidden[bare];
  if (why !== undefined) return `flag "${bare}" is not allowed in ${kind.name}: ${why}`;
  const flags = flagsByName();
  const def = flags.get(bare);
  if (def === undefined) return `unknown flag "${bare}"${didYouMean(bare, [...flags.keys()])} (see blis run --help)`;
  return def;
}

export function resolvePath(p: string, baseDir: string): string {
  return p === "" || path.isAbsolute(p) ? p : path.resolve(baseDir, p);
}

/** A mapping of flag → value into typed run options; `nodes` records each flag's key node. */
export function readFlags(
  y: YamlSource,
  node: Node | null,
  item: string,
  baseDir: string,
  kind: FileKind,
  into: Record<string, unknown>,
  nodes: Map<string, Node>,
): void {
  if (y.deref(node) === null) return;
  for (const { name, key, value } of y.pairs(node, item, "flag → value")) {
    const def = lookupFlag(name, kind);
    if (typeof def === "string") y.fail(key, `${item} "${name}"`, def);
    const bare = def.flag.slice(2);
    into[def.key] = flagValue(y, value, def, `${item} "${bare}"`, baseDir);
    nodes.set(bare, key);
  }
}

/** One flag's YAML value → the typed run option, parsed as the CLI parses flag text. */
export function flagValue(y: YamlSource, node: Node | null, def: AnyFlagDef, item: string, baseDir: string): unknown {
  if (def.type === "strings") {
    // Repeatable flags (--plugin, --plugin-option): one value or a list; only file flags are paths.
    const list = y.isSeq(node) ? y.seq(node, item) : [node];
    return list.map((n, i) => {
      const t = y.str(n, list.length > 1 ? `${item}[${i}]` : item);
      return PATH_FLAG_KEYS.has(def.key) ? resolvePath(t, baseDir) : t;
    });
  }
  let text: string;
  if (def.type === "floats" && y.isSeq(node)) {
    text = y
      .seq(node, item)
      .map((n, i) => y.text(n, `${item}[${i}]`))
      .join(",");
  } else {
    if (y.scalar(node, item).value === null) y.fail(node, item, `missing value for ${def.flag}`);
    text = y.text(node, item);
  }
  let v: unknown;
  try {
    v = flagParser(def.type, def.flag)(text, undefined);
  } catch (e) {
    y.fail(node, item, `invalid value for ${def.flag}: ${(e as Error).message.replace(/\.$/, "")}`);
  }
  if (PATH_FLAG_KEYS.has(def.key) && typeof v === "string" && v !== "") {
    v = resolvePath(v, baseDir);
    if (def.key === "workloadSpec" && !fs.existsSync(v as string))
      y.fail(node, item, `workload spec ${v as string} does not exist`);
  }
  return v;
}

/** base.workload_spec: a path relative to the file, or an inline spec mapping. `file` is null inline. */
export function readSpec(
  y: YamlSource,
  node: Node | null,
  baseDir: string,
): { spec: WorkloadSpec; file: string | null } {
  const item = "base.workload_spec";
  if (y.isMap(node)) {
    // Re-parse the inline text with the workload-spec loader so every rule of spec files applies;
    // padding keeps the line and column numbers of the enclosing file.
    const [start, , end] = node!.range!;
    const { line, col } = y.where(node);
    const padded = "\n".repeat(line - 1) + " ".repeat(col - 1) + y.content.slice(start, end);
    try {
      return { spec: parseWorkloadSpec(padded), file: null };
    } catch (e) {
      // The loader's "(line L, column C)" is already a position in this file: use it as the prefix.
      const msg = (e as Error).message;
      const at = / \(line (\d+), column (\d+)\)$/.exec(msg);
      if (at !== null) y.failAt(Number(at[1]), Number(at[2]), item, msg.slice(0, at.index));
      y.fail(node, item, msg);
    }
  }
  const p = y.str(node, item);
  const full = resolvePath(p, baseDir);
  try {
    return { spec: loadWorkloadSpec(full), file: full };
  } catch (e) {
    y.fail(node, item, `${p}: ${(e as Error).message}`);
  }
}

/** A metric name the tables can show (fixed names and the per_slo / instance / fitness patterns). */
export function checkMetric(y: YamlSource, node: Node | null, item: string): string {
  const m = y.str(node, item);
  const why = metricProblem(m);
  if (why !== null)
    y.fail(
      node,
      `${item} "${m}"`,
      why === "unknown metric" ? `unknown metric${didYouMean(m, fixedMetricNames())}` : why,
    );
  return m;
}

// Sweep plan files (examples/experiments/README.md "Plan keys"): strict YAML parsing with positions, validation that
// names
// the offending item, and expansion into configurations (one RunInput per grid/variant point).

import path from "node:path";
import type { Node } from "yaml";
import { PlanError } from "./errors.js";
import { DEFAULT_METRICS } from "./metrics.js";
import { PLAN_KIND, readFlags, readSpec } from "./configYaml.js";
import { checkOwnership, checkSpecSources, expandGrid, type PlanBase } from "./planGrid.js";
import { assignDirs } from "./planIdentity.js";
import { preflightWarnings } from "./planPreflight.js";
import { readAxis, readVariants, type AxisDef, type VariantDef } from "./planReadAxes.js";
import { readBaseline, readChecks, readMetrics, readRatio } from "./planReadTables.js";
import type { SelectorContext } from "./planSelectors.js";
import {
  DEFAULT_SEEDS,
  DEFAULT_TIMEOUT_S,
  timeoutProblem,
  type RatioDef,
  type Selector,
  type SweepPlan,
} from "./planTypes.js";
import { scalarText, YamlSource } from "../util/yamlSource.js";
import { InputFileError, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

export interface LoadPlanOptions {
  /** Name used in error messages (default: the path as given). */
  displayName?: string;
}

/** Reads, validates and expands a plan file. Throws PlanError (one line) when it is invalid. */
export function loadPlan(file: string, opts: LoadPlanOptions = {}): SweepPlan {
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    const why = e instanceof InputFileError ? e.reason : (e as Error).message;
    throw new PlanError(`${opts.displayName ?? file}: cannot read the plan file: ${why}`);
  }
  return parsePlan(text, {
    file: opts.displayName ?? file,
    baseDir: path.dirname(path.resolve(file)),
    source: path.resolve(file),
  });
}

export interface ParsePlanOptions {
  /** Name used in error messages. */
  file?: string;
  /** Directory that relative paths are resolved against (default: cwd). */
  baseDir?: string;
  source?: string | null;
}

// `report` belongs to the report layer (report/planOptions.ts); the plan itself ignores it.
const TOP_KEYS = [
  "name",
  "seeds",
  "timeout_s",
  "allow_failures",
  "base",
  "axes",
  "variants",
  "baseline",
  "metrics",
  "ratios",
  "checks",
  "report",
];

/** Parses plan YAML text. Throws PlanError naming the offending item and its line/column. */
export function parsePlan(text: string, opts: ParsePlanOptions = {}): SweepPlan {
  const file = opts.file ?? "plan.yaml";
  const baseDir = opts.baseDir ?? process.cwd();
  const src = new YamlSource(file, text, { error: (m) => new PlanError(m), what: "plan", intAsBigInt: true });
  const top = src.map(src.root, "plan", TOP_KEYS);
  const get = (k: string): Node | null => top.get(k)?.value ?? null;

  const name = top.has("name") ? src.str(get("name"), "name") : path.basename(file).replace(/\.ya?ml$/i, "");
  const seeds = top.has("seeds") ? readSeeds(src, get("seeds")) : DEFAULT_SEEDS.slice();
  const timeoutS = top.has("timeout_s") ? readTimeout(src, get("timeout_s")) : DEFAULT_TIMEOUT_S;
  const allowFailures = top.has("allow_failures") ? src.bool(get("allow_failures"), "allow_failures") : false;
  const base = top.has("base") ? readBase(src, get("base"), baseDir) : emptyBase();
  const axisDefs: AxisDef[] = [];
  if (top.has("axes")) {
    src.seq(get("axes"), "axes").forEach((n, i) => axisDefs.push(readAxis(src, n, i, baseDir)));
  }
  const variants: VariantDef[] = top.has("variants") ? readVariants(src, get("variants"), baseDir) : [];

  checkOwnership(src, axisDefs, variants);
  checkSpecSources(src, base, axisDefs, variants);
  const baseNode = top.get("base")?.key ?? src.root;
  const { axes, configs } = expandGrid(src, { base, axisDefs, variants, axesNode: get("axes"), baseNode });
  assignDirs(configs);

  // The table items refer to configurations, so they are read once the grid exists.
  const ctx: SelectorContext = { axes, configs };
  const baseline: Selector | null = top.has("baseline") ? readBaseline(src, get("baseline"), ctx) : null;
  const metrics: string[] = top.has("metrics") ? readMetrics(src, get("metrics")) : [...DEFAULT_METRICS];
  const ratios: RatioDef[] = [];
  if (top.has("ratios")) {
    src.seq(get("ratios"), "ratios").forEach((n, i) => ratios.push(readRatio(src, n, i, ctx, metrics)));
  }
  const checks = readChecks(src, top.has("checks") ? get("checks") : null, axes);

  return {
    name,
    source: opts.source ?? null,
    seeds,
    timeoutS,
    axes,
    configs,
    baseline,
    metrics,
    ratios,
    checks,
    allowFailures,
    warnings: preflightWarnings(configs),
  };
}

function readSeeds(src: YamlSource, node: Node | null): number[] {
  const items = src.seq(node, "seeds");
  if (items.length === 0) src.fail(node, "seeds", "the seed list must not be empty");
  const seeds = items.map((n, i) => {
    const s = src.scalar(n, `seeds[${i}]`);
    const v = src.js(s);
    if (typeof v !== "number" || !Number.isSafeInteger(v))
      src.fail(
        n,
        `seeds[${i}]`,
        `expected an integer of at most 2^53 − 1 in magnitude, got ${scalarText(s) || "null"}`,
      );
    return v as number;
  });
  const dup = seeds.find((s, i) => seeds.indexOf(s) !== i);
  if (dup !== undefined) src.fail(node, "seeds", `seed ${dup} is listed twice`);
  return seeds;
}

function readTimeout(src: YamlSource, node: Node | null): number {
  const s = src.scalar(node, "timeout_s");
  const v = src.js(s);
  const why = timeoutProblem(v);
  if (why !== null) src.fail(s, "timeout_s", why);
  return v as number;
}

function emptyBase(): PlanBase {
  return { flags: {}, flagNodes: new Map<string, Node>(), spec: null, specNode: null };
}

function readBase(src: YamlSource, node: Node | null, baseDir: string): PlanBase {
  const out = emptyBase();
  const base = src.map(node, "base", ["flags", "workload_spec"]);
  if (base.has("flags"))
    readFlags(src, base.get("flags")!.value, "base.flags", baseDir, PLAN_KIND, out.flags, out.flagNodes);
  if (base.has("workload_spec")) {
    out.specNode = base.get("workload_spec")!.value;
    out.spec = readSpec(src, out.specNode, baseDir).spec;
  }
  return out;
}

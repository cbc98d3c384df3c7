// Sweep plan files (workload.md §8.1): strict YAML parsing with positions, validation that names
// the offending item, and expansion into configurations (one RunInput per grid/variant point).

import fs from "node:fs";
import path from "node:path";
import { isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from "yaml";
import type { RunInput } from "../config/runOptions.js";
import { decodeWorkloadSpec, type WorkloadSpec } from "../workload/index.js";
import { canonicalHash } from "./canonical.js";
import { didYouMean } from "../util/didYouMean.js";
import { PlanError } from "./errors.js";
import { DEFAULT_METRICS, metricProblem } from "./metrics.js";
import { checkMetric, flagValue, lookupFlag, PLAN_KIND, readFlags, readSpec } from "./configYaml.js";
import { scalarText, YamlSource } from "../util/yamlSource.js";

export const DEFAULT_SEEDS = [42, 123, 456];
export const DEFAULT_TIMEOUT_S = 300;
/** Name of the implicit axis formed by `variants`. */
export const VARIANT_AXIS = "variant";

/** One dimension of the configuration grid. */
export interface SweepAxis {
  name: string;
  /** What the axis sets: a run flag, a workload-spec path, the variant bundle, or a caller's coordinate. */
  kind: "flag" | "spec" | "variant" | "coord";
  /** Flag name (without dashes) or spec path; "" for variants and coordinates. */
  target: string;
  /** Value labels in plan order; they appear in configuration labels and selectors. */
  labels: string[];
  /** The values as written in the plan (equal to labels unless `labels` was given). */
  texts: string[];
  /** The values as numbers when every value is a number (monotonicity checks), else null. */
  numeric: number[] | null;
}

/** One point of the grid: the run options shared by all its seeds. */
export interface SweepConfig {
  index: number;
  /** `name=value` pairs joined by commas (or the caller's label). */
  label: string;
  /** Axis name → value label. */
  coords: Record<string, string>;
  /** Run options without the seed (added per run). */
  input: RunInput;
  /** Directory name under --out (sanitized label, unique). */
  dir: string;
}

/** A configuration reference: a full label, or axis assignments applied relative to another config. */
export type Selector = { text: string; config: number } | { text: string; assign: Record<string, string> };

export interface RatioDef {
  name: string;
  numerator: Selector;
  denominator: Selector;
  metrics: string[];
}

export interface MonotonicDef {
  axis: string;
  metric: string;
  direction: "increasing" | "decreasing";
  /** Restricts the check to configurations with these axis values. */
  where: Record<string, string>;
}

export interface SweepChecks {
  conservation: boolean;
  determinism: boolean;
  monotonic: MonotonicDef[];
}

/** A validated, expanded plan: what `runSweep` executes. */
export interface SweepPlan {
  name: string;
  /** The plan file, when loaded from one. */
  source: string | null;
  seeds: number[];
  timeoutS: number;
  axes: SweepAxis[];
  configs: SweepConfig[];
  baseline: Selector | null;
  metrics: string[];
  ratios: RatioDef[];
  checks: SweepChecks;
  /** Preflight warnings (§8.2 item 3). */
  warnings: string[];
}

// ---------------------------------------------------------------------------------------------
// Spec paths

export type SpecPath = (string | number)[];

export function parseSpecPath(text: string): SpecPath | null {
  const re = /^([A-Za-z_][A-Za-z0-9_]*)|^\.([A-Za-z_][A-Za-z0-9_]*)|^\[(\d+)\]/;
  const out: SpecPath = [];
  let rest = text.trim();
  if (rest === "") return null;
  let first = true;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (m === null) return null;
    if (m[1] !== undefined) {
      if (!first) return null;
      out.push(m[1]);
    } else if (m[2] !== undefined) out.push(m[2]);
    else out.push(Number(m[3]));
    if (first && m[1] === undefined) return null;
    first = false;
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** Sets `value` at `p` inside `root` (mutates). Returns an error text when the path does not exist. */
export function setSpecPath(root: unknown, p: SpecPath, value: unknown): string | null {
  let cur: unknown = root;
  let walked = "";
  for (let i = 0; i < p.length; i++) {
    const step = p[i]!;
    const last = i === p.length - 1;
    if (typeof step === "number") {
      if (!Array.isArray(cur)) return `${walked || "the spec"} is not a list`;
      if (step >= cur.length) return `${walked}[${step}] does not exist (the list has ${cur.length} item${cur.length === 1 ? "" : "s"})`;
      if (last) cur[step] = value;
      else cur = cur[step];
      walked += `[${step}]`;
    } else {
      if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return `${walked || "the spec"} is not a mapping`;
      const o = cur as Record<string, unknown>;
      walked += walked === "" ? step : `.${step}`;
      if (last) o[step] = value;
      else {
        if (o[step] === undefined || o[step] === null) return `${walked} is not set in the base spec`;
        cur = o[step];
      }
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Loading

export interface LoadPlanOptions {
  /** Name used in error messages (default: the path as given). */
  displayName?: string;
}

/** Reads, validates and expands a plan file. Throws PlanError (one line) when it is invalid. */
export function loadPlan(file: string, opts: LoadPlanOptions = {}): SweepPlan {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new PlanError(`${opts.displayName ?? file}: cannot read the plan file${code ? ` (${code})` : ""}`);
  }
  return parsePlan(text, { file: opts.displayName ?? file, baseDir: path.dirname(path.resolve(file)), source: path.resolve(file) });
}

export interface ParsePlanOptions {
  /** Name used in error messages. */
  file?: string;
  /** Directory that relative paths are resolved against (default: cwd). */
  baseDir?: string;
  source?: string | null;
}

interface VariantDef {
  name: string;
  node: Node;
  flags: Record<string, unknown>;
  flagNodes: Map<string, Node>;
  overrides: [string, SpecPath, unknown, Node][];
}

interface AxisDef {
  axis: SweepAxis;
  node: Node;
  key: string;
  specPath: SpecPath | null;
  values: unknown[];
  valueNodes: Node[];
}

// `report` belongs to the report layer (report/planOptions.ts); the plan itself ignores it.
const TOP_KEYS = ["name", "seeds", "timeout_s", "base", "axes", "variants", "baseline", "metrics", "ratios", "checks", "report"];

/** Parses plan YAML text. Throws PlanError naming the offending item and its line/column. */
export function parsePlan(text: string, opts: ParsePlanOptions = {}): SweepPlan {
  const file = opts.file ?? "plan.yaml";
  const baseDir = opts.baseDir ?? process.cwd();
  const src = new YamlSource(file, text, { error: (m) => new PlanError(m), what: "plan", intAsBigInt: true });
  const top = src.map(src.root, "plan", TOP_KEYS);
  const get = (k: string): Node | null => top.get(k)?.value ?? null;

  // name, seeds, timeout
  const name = top.has("name") ? src.str(get("name"), "name") : path.basename(file).replace(/\.ya?ml$/i, "");
  let seeds = DEFAULT_SEEDS.slice();
  if (top.has("seeds")) {
    const items = src.seq(get("seeds"), "seeds");
    if (items.length === 0) src.fail(get("seeds"), "seeds", "the seed list must not be empty");
    seeds = items.map((n, i) => {
      const s = src.scalar(n, `seeds[${i}]`);
      const v = src.js(s);
      if (typeof v !== "number" || !Number.isSafeInteger(v)) src.fail(n, `seeds[${i}]`, `expected an integer of at most 2^53 − 1 in magnitude, got ${scalarText(s) || "null"}`);
      return v as number;
    });
    const dup = seeds.find((s, i) => seeds.indexOf(s) !== i);
    if (dup !== undefined) src.fail(get("seeds"), "seeds", `seed ${dup} is listed twice`);
  }
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (top.has("timeout_s")) {
    const s = src.scalar(get("timeout_s"), "timeout_s");
    const v = src.js(s);
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) src.fail(s, "timeout_s", "expected a number of seconds > 0");
    timeoutS = v as number;
  }

  // base
  const baseFlags: Record<string, unknown> = {};
  const baseFlagNodes = new Map<string, Node>();
  let baseSpec: WorkloadSpec | null = null;
  let baseSpecNode: Node | null = null;
  if (top.has("base")) {
    const base = src.map(get("base"), "base", ["flags", "workload_spec"]);
    if (base.has("flags")) readFlags(src, base.get("flags")!.value, "base.flags", baseDir, PLAN_KIND, baseFlags, baseFlagNodes);
    if (base.has("workload_spec")) {
      baseSpecNode = base.get("workload_spec")!.value;
      baseSpec = readSpec(src, baseSpecNode, baseDir).spec;
    }
  }

  // axes
  const axisDefs: AxisDef[] = [];
  if (top.has("axes")) {
    src.seq(get("axes"), "axes").forEach((n, i) => axisDefs.push(readAxis(src, n, i, baseDir)));
  }
  // variants
  const variants: VariantDef[] = [];
  if (top.has("variants")) {
    const items = src.seq(get("variants"), "variants");
    if (items.length === 0) src.fail(get("variants"), "variants", "the variant list must not be empty");
    items.forEach((n, i) => variants.push(readVariant(src, n, i, baseDir)));
    const seen = new Set<string>();
    for (const v of variants) {
      if (seen.has(v.name)) src.fail(v.node, `variants "${v.name}"`, "variant names must be unique");
      seen.add(v.name);
    }
  }

  // Cross-item consistency.
  const axisNames = new Set<string>();
  const flagOwners = new Map<string, string>();
  const specOwners = new Map<string, string>();
  axisDefs.forEach((a, i) => {
    const item = `axes[${i}] "${a.axis.name}"`;
    if (axisNames.has(a.axis.name)) src.fail(a.node, item, "axis names must be unique");
    if (variants.length > 0 && a.axis.name === VARIANT_AXIS) src.fail(a.node, item, `the axis name "${VARIANT_AXIS}" is reserved for variants`);
    axisNames.add(a.axis.name);
    const owners = a.axis.kind === "flag" ? flagOwners : specOwners;
    const prev = owners.get(a.axis.target);
    if (prev !== undefined) src.fail(a.node, item, `${a.axis.kind} "${a.axis.target}" is already set by ${prev}`);
    owners.set(a.axis.target, `axis "${a.axis.name}"`);
  });
  variants.forEach((v, i) => {
    for (const [flag, node] of v.flagNodes) {
      const owner = flagOwners.get(flag);
      if (owner !== undefined) src.fail(node, `variants[${i}] "${v.name}"`, `flag "${flag}" is also set by ${owner}`);
    }
    for (const [p, , , node] of v.overrides) {
      const owner = specOwners.get(p);
      if (owner !== undefined) src.fail(node, `variants[${i}] "${v.name}"`, `spec path "${p}" is also set by ${owner}`);
    }
  });

  // Workload spec sources must not conflict: an in-memory spec (base.workload_spec) wins over a
  // --workload-spec flag, so both at once would silently ignore one of them.
  const specFlagUsers: Node[] = [];
  if (baseFlagNodes.has("workload-spec")) specFlagUsers.push(baseFlagNodes.get("workload-spec")!);
  for (const a of axisDefs) if (a.axis.kind === "flag" && a.axis.target === "workload-spec") specFlagUsers.push(a.node);
  for (const v of variants) if (v.flagNodes.has("workload-spec")) specFlagUsers.push(v.flagNodes.get("workload-spec")!);
  const needsSpec =
    axisDefs.find((a) => a.axis.kind === "spec")?.node ?? variants.find((v) => v.overrides.length > 0)?.overrides[0]![3] ?? null;
  if (baseSpec !== null && specFlagUsers.length > 0) {
    src.fail(specFlagUsers[0], "workload-spec", "use either base.workload_spec or the workload-spec flag, not both");
  }
  if (needsSpec !== null && baseSpec === null) {
    src.fail(needsSpec, "spec", "spec paths need base.workload_spec (a spec file or an inline spec)");
  }

  // Expansion.
  const axes: SweepAxis[] = axisDefs.map((a) => a.axis);
  if (variants.length > 0) {
    const names = variants.map((v) => v.name);
    axes.push({ name: VARIANT_AXIS, kind: "variant", target: "", labels: names, texts: names, numeric: null });
  }
  const configs: SweepConfig[] = [];
  const dims = axes.map((a) => a.labels.length);
  const total = dims.reduce((x, y) => x * y, 1);
  if (total > 100000) src.fail(get("axes"), "axes", `the grid has ${total} configurations; at most 100000 are supported`);
  for (let c = 0; c < total; c++) {
    // Mixed-radix index, first axis outermost.
    const idx: number[] = new Array<number>(axes.length);
    let rem = c;
    for (let k = axes.length - 1; k >= 0; k--) {
      idx[k] = rem % dims[k]!;
      rem = Math.floor(rem / dims[k]!);
    }
    const coords: Record<string, string> = {};
    const input: Record<string, unknown> = { ...baseFlags };
    let spec: WorkloadSpec | null = baseSpec === null ? null : structuredClone(baseSpec);
    const specChanges: [string, SpecPath, unknown, Node, string][] = [];
    axes.forEach((axis, k) => {
      coords[axis.name] = axis.labels[idx[k]!]!;
      if (axis.kind === "variant") {
        const v = variants[idx[k]!]!;
        Object.assign(input, v.flags);
        for (const [p, sp, val, node] of v.overrides) specChanges.push([p, sp, val, node, `variants "${v.name}" spec_overrides "${p}"`]);
      }
    });
    // Axis values override variant bundles (they never overlap, checked above).
    axisDefs.forEach((a, k) => {
      const val = a.values[idx[k]!];
      if (a.axis.kind === "flag") input[a.key] = val;
      else specChanges.push([a.axis.target, a.specPath!, val, a.valueNodes[idx[k]!]!, `axes[${k}] "${a.axis.name}" value ${a.axis.labels[idx[k]!]}`]);
    });
    if (spec !== null) {
      for (const [p, sp, val, node, item] of specChanges) {
        const err = setSpecPath(spec, sp, structuredClone(val));
        if (err !== null) src.fail(node, item, `spec path "${p}": ${err}`);
      }
      try {
        spec = decodeWorkloadSpec(spec, "workload spec");
      } catch (e) {
        const where = specChanges.length > 0 ? specChanges[specChanges.length - 1]! : null;
        src.fail(where?.[3] ?? baseSpecNode, where?.[4] ?? "base.workload_spec", (e as Error).message);
      }
      input["workloadSpecObject"] = spec;
    }
    const label = axes.length === 0 ? "base" : axes.map((a) => `${a.name}=${coords[a.name]}`).join(",");
    if (typeof input["model"] !== "string" || input["model"] === "") {
      src.fail(top.get("base")?.key ?? src.root, "base.flags", `configuration "${label}" has no model: set base.flags model`);
    }
    configs.push({ index: c, label, coords, input: input as RunInput, dir: "" });
  }
  assignDirs(configs);

  // Selectors, metrics, ratios, checks.
  const ctx: SelectorContext = { axes, configs };
  let baseline: Selector | null = null;
  if (top.has("baseline")) {
    const n = get("baseline");
    const t = src.str(n, "baseline");
    baseline = parseSelectorOrFail(ctx, t, (msg) => src.fail(n, `baseline "${t}"`, msg));
    if (matching(ctx, baseline).length === 0) src.fail(n, `baseline "${t}"`, "matches no configuration");
  }
  let metrics: string[] = [...DEFAULT_METRICS];
  if (top.has("metrics")) {
    const items = src.seq(get("metrics"), "metrics");
    if (items.length === 0) src.fail(get("metrics"), "metrics", "the metric list must not be empty");
    metrics = items.map((n, i) => checkMetric(src, n, `metrics[${i}]`));
    const dup = metrics.find((m, i) => metrics.indexOf(m) !== i);
    if (dup !== undefined) src.fail(get("metrics"), "metrics", `metric "${dup}" is listed twice`);
  }
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
    warnings: preflightWarnings(configs),
  };
}




function readAxis(src: YamlSource, node: Node, i: number, baseDir: string): AxisDef {
  const e = src.map(node, `axes[${i}]`, ["name", "flag", "spec", "values", "labels"]);
  if (!e.has("name")) src.fail(node, `axes[${i}]`, "missing key \"name\"");
  const name = src.str(e.get("name")!.value, `axes[${i}] name`);
  const item = `axes[${i}] "${name}"`;
  if (/[=,]/.test(name)) src.fail(e.get("name")!.value, item, "axis names must not contain '=' or ','");
  if (e.has("flag") === e.has("spec")) src.fail(node, item, "give exactly one of \"flag\" or \"spec\"");
  if (!e.has("values")) src.fail(node, item, "missing key \"values\"");
  const valuesNode = e.get("values")!.value;
  const valueNodes = src.seq(valuesNode, `${item} values`);
  if (valueNodes.length === 0) src.fail(valuesNode ?? node, item, "values must not be empty");
  let labels: string[] | null = null;
  if (e.has("labels")) {
    const ln = src.seq(e.get("labels")!.value, `${item} labels`);
    if (ln.length !== valueNodes.length) {
      src.fail(e.get("labels")!.value, item, `labels has ${ln.length} entries but values has ${valueNodes.length}`);
    }
    labels = ln.map((n, k) => src.str(n, `${item} labels[${k}]`));
  }
  let values: unknown[];
  let key = "";
  let specPath: SpecPath | null = null;
  let target: string;
  if (e.has("flag")) {
    const flagName = src.text(e.get("flag")!.value, `${item} flag`);
    const def = lookupFlag(flagName);
    if (typeof def === "string") src.fail(e.get("flag")!.value, item, def);
    key = def.key;
    target = def.flag.slice(2);
    values = valueNodes.map((n, k) => flagValue(src, n, def, `${item} values[${k}]`, baseDir));
  } else {
    target = src.text(e.get("spec")!.value, `${item} spec`);
    specPath = parseSpecPath(target);
    if (specPath === null) src.fail(e.get("spec")!.value, item, `"${target}" is not a spec path (e.g. aggregate_rate, clients[0].arrival.cv)`);
    values = valueNodes.map((n) => src.js(n));
  }
  const texts = valueNodes.map((n, k) => (isScalar(n) ? scalarText(n) || String(values[k]) : JSON.stringify(values[k])));
  const valueLabels = labels ?? texts;
  const dup = valueLabels.find((l, k) => valueLabels.indexOf(l) !== k);
  if (dup !== undefined) src.fail(valuesNode, item, `value "${dup}" is listed twice`);
  const raw = valueNodes.map((n) => (isScalar(n) ? src.js(n) : null));
  const numeric = raw.every((v) => typeof v === "number") ? (raw as number[]) : null;
  return {
    axis: { name, kind: e.has("flag") ? "flag" : "spec", target, labels: valueLabels, texts, numeric },
    node,
    key,
    specPath,
    values,
    valueNodes,
  };
}

function readVariant(src: YamlSource, node: Node, i: number, baseDir: string): VariantDef {
  const e = src.map(node, `variants[${i}]`, ["name", "flags", "spec_overrides"]);
  if (!e.has("name")) src.fail(node, `variants[${i}]`, "missing key \"name\"");
  const name = src.str(e.get("name")!.value, `variants[${i}] name`);
  const item = `variants[${i}] "${name}"`;
  if (/[,]/.test(name)) src.fail(e.get("name")!.value, item, "variant names must not contain ','");
  const flags: Record<string, unknown> = {};
  const flagNodes = new Map<string, Node>();
  if (e.has("flags")) readFlags(src, e.get("flags")!.value, `${item} flags`, baseDir, PLAN_KIND, flags, flagNodes);
  const overrides: [string, SpecPath, unknown, Node][] = [];
  if (e.has("spec_overrides")) {
    const m = src.deref(e.get("spec_overrides")!.value);
    if (m !== null) {
      if (!isMap(m)) src.fail(m, `${item} spec_overrides`, "expected a mapping of spec path → value");
      for (const pair of (m as YAMLMap).items as Pair[]) {
        const k = pair.key as Node;
        const p = isScalar(k) ? String(k.value) : "";
        const sp = parseSpecPath(p);
        if (sp === null) src.fail(k, `${item} spec_overrides`, `"${p}" is not a spec path (e.g. aggregate_rate, clients[0].arrival.cv)`);
        overrides.push([p, sp, src.js(src.deref((pair.value as Node | null) ?? null)), k]);
      }
    }
  }
  return { name, node, flags, flagNodes, overrides };
}


function readRatio(src: YamlSource, node: Node, i: number, ctx: SelectorContext, planMetrics: string[]): RatioDef {
  const e = src.map(node, `ratios[${i}]`, ["name", "numerator", "denominator", "metric", "metrics"]);
  const name0 = e.has("name") ? src.str(e.get("name")!.value, `ratios[${i}] name`) : null;
  const item = name0 !== null ? `ratios[${i}] "${name0}"` : `ratios[${i}]`;
  for (const k of ["numerator", "denominator"]) if (!e.has(k)) src.fail(node, item, `missing key "${k}"`);
  const sel = (k: "numerator" | "denominator"): Selector => {
    const n = e.get(k)!.value;
    const t = src.str(n, `${item} ${k}`);
    const s = parseSelectorOrFail(ctx, t, (msg) => src.fail(n, `${item} ${k} "${t}"`, msg));
    if (matching(ctx, s).length === 0) src.fail(n, `${item} ${k} "${t}"`, "matches no configuration");
    return s;
  };
  const numerator = sel("numerator");
  const denominator = sel("denominator");
  if (e.has("metric") && e.has("metrics")) src.fail(node, item, "give either \"metric\" or \"metrics\"");
  let metrics = planMetrics;
  if (e.has("metric")) metrics = [checkMetric(src, e.get("metric")!.value, `${item} metric`)];
  if (e.has("metrics")) {
    const items = src.seq(e.get("metrics")!.value, `${item} metrics`);
    if (items.length === 0) src.fail(e.get("metrics")!.value, item, "metrics must not be empty");
    metrics = items.map((n, k) => checkMetric(src, n, `${item} metrics[${k}]`));
  }
  if (pairs(ctx, numerator, denominator).length === 0) {
    src.fail(node, item, "no configuration pairs: the numerator and the denominator select the same configurations");
  }
  return { name: name0 ?? `${numerator.text} / ${denominator.text}`, numerator, denominator, metrics };
}

function readChecks(src: YamlSource, node: Node | null, axes: SweepAxis[]): SweepChecks {
  const out: SweepChecks = { conservation: true, determinism: false, monotonic: [] };
  node = src.deref(node);
  if (node === null) return out;
  const mono = (n: Node | null, item: string): void => {
    n = src.deref(n);
    const list = n !== null && isSeq(n) ? src.seq(n, item).map((x, k) => [x, `${item}[${k}]`] as const) : [[n, item] as const];
    for (const [x, it] of list) out.monotonic.push(readMonotonic(src, x, it, axes));
  };
  if (isSeq(node)) {
    src.seq(node, "checks").forEach((n, i) => {
      if (isScalar(n)) {
        const t = String(n.value);
        if (t === "conservation") out.conservation = true;
        else if (t === "determinism") out.determinism = true;
        else src.fail(n, `checks[${i}]`, `unknown check "${t}" (valid: conservation, determinism, monotonic)`);
        return;
      }
      const e = src.map(n, `checks[${i}]`, ["conservation", "determinism", "monotonic"]);
      if (e.has("conservation")) out.conservation = src.bool(e.get("conservation")!.value, `checks[${i}] conservation`);
      if (e.has("determinism")) out.determinism = src.bool(e.get("determinism")!.value, `checks[${i}] determinism`);
      if (e.has("monotonic")) mono(e.get("monotonic")!.value, `checks[${i}] monotonic`);
    });
    return out;
  }
  const e = src.map(node, "checks", ["conservation", "determinism", "monotonic"]);
  if (e.has("conservation")) out.conservation = src.bool(e.get("conservation")!.value, "checks.conservation");
  if (e.has("determinism")) out.determinism = src.bool(e.get("determinism")!.value, "checks.determinism");
  if (e.has("monotonic")) mono(e.get("monotonic")!.value, "checks.monotonic");
  return out;
}

function readMonotonic(src: YamlSource, node: Node | null, item: string, axes: SweepAxis[]): MonotonicDef {
  const e = src.map(node, item, ["axis", "metric", "direction", "where"]);
  for (const k of ["axis", "metric", "direction"]) if (!e.has(k)) src.fail(node, item, `missing key "${k}"`);
  const axisName = src.str(e.get("axis")!.value, `${item} axis`);
  const axis = axes.find((a) => a.name === axisName);
  if (axis === undefined) {
    src.fail(e.get("axis")!.value, `${item} axis "${axisName}"`, `no such axis${didYouMean(axisName, axes.map((a) => a.name))}`);
  }
  if (axis.numeric === null) src.fail(e.get("axis")!.value, `${item} axis "${axisName}"`, "the axis values must all be numbers");
  const metric = checkMetric(src, e.get("metric")!.value, `${item} metric`);
  const direction = src.text(e.get("direction")!.value, `${item} direction`);
  if (direction !== "increasing" && direction !== "decreasing") {
    src.fail(e.get("direction")!.value, `${item} direction`, `expected increasing or decreasing, got "${direction}"`);
  }
  const where: Record<string, string> = {};
  if (e.has("where")) {
    const w = src.deref(e.get("where")!.value);
    if (w === null || !isMap(w)) src.fail(w, `${item} where`, "expected a mapping of axis → value");
    for (const pair of (w as YAMLMap).items as Pair[]) {
      const k = pair.key as Node;
      const an = isScalar(k) ? String(k.value) : "";
      const ax = axes.find((a) => a.name === an);
      if (ax === undefined || an === axisName) src.fail(k, `${item} where "${an}"`, an === axisName ? "cannot fix the checked axis" : "no such axis");
      const vn = src.deref((pair.value as Node | null) ?? null);
      const vt = scalarText(src.scalar(vn, `${item} where "${an}"`)) ?? "";
      const label = matchValue(ax, vt);
      if (label === null) src.fail(vn, `${item} where "${an}"`, `no value "${vt}" in axis "${an}" (values: ${ax.labels.join(", ")})`);
      where[an] = label;
    }
  }
  return { axis: axisName, metric, direction, where };
}

// ---------------------------------------------------------------------------------------------
// Selectors

export interface SelectorContext {
  axes: SweepAxis[];
  configs: SweepConfig[];
}

function matchValue(axis: SweepAxis, text: string): string | null {
  if (axis.labels.includes(text)) return text;
  const k0 = axis.texts.indexOf(text);
  if (k0 >= 0) return axis.labels[k0]!;
  if (axis.numeric !== null) {
    const n = Number(text);
    const k = axis.numeric.findIndex((v) => v === n);
    if (text.trim() !== "" && k >= 0) return axis.labels[k]!;
  }
  return null;
}

/** Parses a config label or `axis=value[,axis=value…]` reference; returns an error text on failure. */
export function parseSelector(ctx: SelectorContext, text: string): Selector | string {
  const exact = ctx.configs.find((c) => c.label === text);
  if (exact !== undefined) return { text, config: exact.index };
  if (!text.includes("=")) return `no configuration labeled "${text}" (and it is not an axis=value reference)`;
  // Split on commas that start a new `axis=` (values may contain commas, e.g. scorer lists).
  const names = new Set(ctx.axes.map((a) => a.name));
  const parts: string[] = [];
  for (const piece of text.split(",")) {
    const eq = piece.indexOf("=");
    if (eq > 0 && names.has(piece.slice(0, eq).trim())) parts.push(piece);
    else if (parts.length > 0) parts[parts.length - 1] += "," + piece;
    else parts.push(piece);
  }
  const assign: Record<string, string> = {};
  for (const part of parts) {
    const eq = part.indexOf("=");
    const an = part.slice(0, eq).trim();
    const vt = part.slice(eq + 1).trim();
    const axis = ctx.axes.find((a) => a.name === an);
    if (eq <= 0 || axis === undefined) {
      return `no axis named "${eq > 0 ? an : part}"${didYouMean(an, [...names])} (axes: ${[...names].join(", ") || "none"})`;
    }
    const label = matchValue(axis, vt);
    if (label === null) return `no value "${vt}" in axis "${an}" (values: ${axis.labels.join(", ")})`;
    assign[an] = label;
  }
  if (Object.keys(assign).length === ctx.axes.length) {
    const c = ctx.configs.find((x) => ctx.axes.every((a) => x.coords[a.name] === assign[a.name]));
    if (c !== undefined) return { text, config: c.index };
  }
  return { text, assign };
}

function parseSelectorOrFail(ctx: SelectorContext, text: string, fail: (msg: string) => never): Selector {
  const s = parseSelector(ctx, text);
  return typeof s === "string" ? fail(s) : s;
}

/** Configurations a selector designates on its own. */
export function matching(ctx: SelectorContext, s: Selector): SweepConfig[] {
  if ("config" in s) return [ctx.configs[s.config]!];
  return ctx.configs.filter((c) => Object.entries(s.assign).every(([k, v]) => c.coords[k] === v));
}

/** The config that `s` designates relative to `from` (assignments replace from's coordinates). */
export function resolveRelative(ctx: SelectorContext, s: Selector, from: SweepConfig): SweepConfig | null {
  if ("config" in s) return ctx.configs[s.config]!;
  const want = { ...from.coords, ...s.assign };
  return ctx.configs.find((c) => ctx.axes.every((a) => c.coords[a.name] === want[a.name])) ?? null;
}

/** (numerator, denominator) config pairs of a ratio, in numerator config order. */
export function pairs(ctx: SelectorContext, num: Selector, den: Selector): [SweepConfig, SweepConfig][] {
  const out: [SweepConfig, SweepConfig][] = [];
  for (const n of matching(ctx, num)) {
    const d = resolveRelative(ctx, den, n);
    if (d !== null && d.index !== n.index) out.push([n, d]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Directories, hashes, preflight

function assignDirs(configs: SweepConfig[]): void {
  const used = new Set<string>();
  for (const c of configs) {
    let d = c.label.replace(/[^A-Za-z0-9._,=+-]/g, "_").replace(/^\.+/, "_");
    if (d.length > 120) d = d.slice(0, 100) + "~" + canonicalHash(c.label).slice(0, 8);
    if (d === "") d = "config";
    let u = d;
    for (let k = 2; used.has(u.toLowerCase()); k++) u = `${d}~${k}`;
    used.add(u.toLowerCase());
    c.dir = u;
  }
}

/**
 * `runs`: identity of the runs (configuration inputs and seeds) — finished runs can be reused only
 * when it matches. `full`: the whole plan (also names, metrics, ratios, checks, timeout).
 */
export function planHashes(plan: SweepPlan): { full: string; runs: string } {
  const runs = canonicalHash({
    configs: plan.configs.map((c) => ({ label: c.label, input: c.input })),
    seeds: plan.seeds,
  });
  const full = canonicalHash({
    runs,
    name: plan.name,
    timeoutS: plan.timeoutS,
    axes: plan.axes,
    baseline: plan.baseline,
    metrics: plan.metrics,
    ratios: plan.ratios,
    checks: plan.checks,
  });
  return { full, runs };
}

/** §8.2 item 3: warn when total KV blocks < 4 × ceil(max input tokens / block size). */
function preflightWarnings(configs: SweepConfig[]): string[] {
  const out: string[] = [];
  for (const c of configs) {
    const inp = c.input as Record<string, unknown>;
    const blocks = inp["totalKvBlocks"];
    if (typeof blocks !== "number") continue; // the defaults file decides; unknown here
    const blockSize = typeof inp["blockSizeInTokens"] === "number" ? (inp["blockSizeInTokens"] as number) : 16;
    if (!(blockSize > 0) || !(blocks > 0)) continue;
    const maxIn = maxInputTokens(inp);
    if (maxIn === null) continue;
    const need = 4 * Math.ceil(maxIn / blockSize);
    if (blocks < need) {
      out.push(
        `config "${c.label}": total-kv-blocks ${blocks} < 4 × ceil(${maxIn} max input tokens / ${blockSize}) = ${need}; preemption cascades are likely`,
      );
    }
  }
  return out;
}

function distMax(d: { type: string; params: Record<string, number> } | undefined): number | null {
  if (d === undefined) return null;
  const p = d.params;
  switch (d.type) {
    case "constant":
      return p["value"] ?? null;
    case "gaussian":
      return p["max"] ?? null;
    case "empirical": {
      const keys = Object.keys(p).map((k) => parseInt(k, 10)).filter((k) => Number.isFinite(k));
      return keys.length > 0 ? Math.max(...keys) : null;
    }
    default:
      return null;
  }
}

function maxInputTokens(inp: Record<string, unknown>): number | null {
  const spec = inp["workloadSpecObject"] as WorkloadSpec | undefined;
  if (spec === undefined) {
    if (inp["workloadSpec"] !== undefined || (inp["workload"] !== undefined && inp["workload"] !== "distribution")) return null;
    const max = typeof inp["promptTokensMax"] === "number" ? (inp["promptTokensMax"] as number) : 7000;
    const prefix = typeof inp["prefixTokens"] === "number" ? (inp["prefixTokens"] as number) : 0;
    return max + prefix;
  }
  let best: number | null = null;
  for (const cl of spec.clients) {
    let inMax = distMax(cl.input_distribution);
    if (inMax === null) continue;
    const mt = cl.reasoning?.multi_turn;
    if (mt && mt.context_growth === "accumulate" && mt.max_rounds > 1) {
      const outMax = distMax(cl.output_distribution);
      if (outMax === null) continue;
      inMax = mt.max_rounds * inMax + (mt.max_rounds - 1) * outMax;
    }
    inMax += cl.prefix_group !== "" ? cl.prefix_length || 50 : 0;
    best = best === null ? inMax : Math.max(best, inMax);
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Plans built in code (optimizers)

export interface CellSpec {
  /** Unique label of the configuration. */
  label: string;
  /** Run options without the seed. */
  input: RunInput;
  /** Optional axis coordinates (axis name → value) for ratios by axis value and monotonicity checks. */
  coords?: Record<string, string | number>;
}

export interface CellsPlanOptions {
  name?: string;
  seeds?: number[];
  timeoutS?: number;
  metrics?: string[];
  /** A cell label or `axis=value`. */
  baseline?: string;
  ratios?: { name?: string; numerator: string; denominator: string; metric?: string; metrics?: string[] }[];
  checks?: Partial<SweepChecks>;
}

/**
 * Builds a plan from in-memory cells (label + run options), for callers that generate
 * configurations themselves. Throws PlanError on invalid input.
 */
export function planFromCells(cells: CellSpec[], opts: CellsPlanOptions = {}): SweepPlan {
  const fail = (msg: string): never => {
    throw new PlanError(msg);
  };
  if (cells.length === 0) fail("cells: the list must not be empty");
  const seeds = opts.seeds ?? DEFAULT_SEEDS.slice();
  if (seeds.length === 0) fail("seeds: the seed list must not be empty");
  seeds.forEach((s, i) => Number.isSafeInteger(s) || fail(`seeds[${i}]: expected an integer of at most 2^53 − 1 in magnitude, got ${s}`));
  if (new Set(seeds).size !== seeds.length) fail("seeds: a seed is listed twice");
  const timeoutS = opts.timeoutS ?? DEFAULT_TIMEOUT_S;
  if (!(timeoutS > 0) || !Number.isFinite(timeoutS)) fail("timeout_s: expected a number of seconds > 0");
  // Axes from the coordinates, values in first-seen order.
  const axisValues = new Map<string, (string | number)[]>();
  for (const c of cells) for (const [k, v] of Object.entries(c.coords ?? {})) {
    const list = axisValues.get(k) ?? [];
    if (!list.includes(v)) list.push(v);
    axisValues.set(k, list);
  }
  const axes: SweepAxis[] = [...axisValues].map(([name, vals]) => ({
    name,
    kind: "coord",
    target: "",
    labels: vals.map(String),
    texts: vals.map(String),
    numeric: vals.every((v) => typeof v === "number") ? (vals as number[]) : null,
  }));
  const labels = new Set<string>();
  const configs: SweepConfig[] = cells.map((c, i) => {
    if (c.label === "") fail(`cells[${i}]: the label must not be empty`);
    if (labels.has(c.label)) fail(`cells[${i}] "${c.label}": labels must be unique`);
    labels.add(c.label);
    if ((c.input as Record<string, unknown>)["seed"] !== undefined) fail(`cells[${i}] "${c.label}": the seed comes from seeds`);
    const coords: Record<string, string> = {};
    for (const a of axes) {
      const v = c.coords?.[a.name];
      if (v === undefined) fail(`cells[${i}] "${c.label}": missing coordinate "${a.name}" (every cell needs the same axes)`);
      coords[a.name] = String(v);
    }
    return { index: i, label: c.label, coords, input: c.input, dir: "" };
  });
  assignDirs(configs);
  const ctx: SelectorContext = { axes, configs };
  const sel = (t: string, item: string): Selector => {
    const s = parseSelector(ctx, t);
    if (typeof s === "string") return fail(`${item} "${t}": ${s}`);
    if (matching(ctx, s).length === 0) fail(`${item} "${t}": matches no configuration`);
    return s;
  };
  const metric = (m: string, item: string): string => {
    const why = metricProblem(m);
    return why === null ? m : fail(`${item} "${m}": ${why}`);
  };
  const metrics = (opts.metrics ?? [...DEFAULT_METRICS]).map((m, i) => metric(m, `metrics[${i}]`));
  if (metrics.length === 0) fail("metrics: the metric list must not be empty");
  const ratios: RatioDef[] = (opts.ratios ?? []).map((r, i) => {
    const numerator = sel(r.numerator, `ratios[${i}] numerator`);
    const denominator = sel(r.denominator, `ratios[${i}] denominator`);
    const ms = r.metric !== undefined ? [metric(r.metric, `ratios[${i}] metric`)] : (r.metrics ?? metrics).map((m) => metric(m, `ratios[${i}] metrics`));
    return { name: r.name ?? `${r.numerator} / ${r.denominator}`, numerator, denominator, metrics: ms };
  });
  const monotonic = (opts.checks?.monotonic ?? []).map((m, i) => {
    const ax = axes.find((a) => a.name === m.axis);
    if (ax === undefined || ax.numeric === null) fail(`checks.monotonic[${i}]: axis "${m.axis}" must exist and be numeric`);
    metric(m.metric, `checks.monotonic[${i}] metric`);
    return { ...m, where: m.where ?? {} };
  });
  return {
    name: opts.name ?? "sweep",
    source: null,
    seeds,
    timeoutS,
    axes,
    configs,
    baseline: opts.baseline !== undefined ? sel(opts.baseline, "baseline") : null,
    metrics,
    ratios,
    checks: {
      conservation: opts.checks?.conservation ?? true,
      determinism: opts.checks?.determinism ?? false,
      monotonic,
    },
    warnings: preflightWarnings(configs),
  };
}

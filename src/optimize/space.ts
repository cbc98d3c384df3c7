// Search-space files of `blis optimize`: strict YAML parsing with positions and validation that
// names the offending item, into an OptimizeSpace (base run options, parameters, objective,
// constraints) plus an identity hash for resuming.

import fs from "node:fs";
import path from "node:path";
import type { Node } from "yaml";
import "../cluster/builtins.js";
import { scorers } from "../cluster/scorers/scorer.js";
import { RUN_FLAGS, type FlagDef } from "../cli/runFlags.js";
import type { RunInput } from "../config/runOptions.js";
import { canonicalHash } from "../experiment/canonical.js";
import { didYouMean } from "../util/didYouMean.js";
import { DEFAULT_SEEDS, DEFAULT_TIMEOUT_S } from "../experiment/plan.js";
import { parseFitnessWeights } from "../metrics/fitness.js";
import { YamlSource } from "../util/yamlSource.js";
import { SpaceError } from "./errors.js";
import { checkMetric, flagValue, lookupFlag, readFlags, readSpec, SPACE_KIND } from "../experiment/configYaml.js";

export type ParamType = "continuous" | "integer" | "categorical";

/** Where a parameter's value goes. */
export type ParamTarget =
  /** A run flag (`flag: slo-age-weight`). */
  | { kind: "flag"; flag: string; def: FlagDef }
  /** A weighted-routing scorer weight: the scorer parameters build --routing-scorers, in order. */
  | { kind: "scorer"; scorer: string }
  /** `--plugin-option <option>=<value>`. */
  | { kind: "plugin_option"; option: string }
  /** A categorical whose values are named flag bundles (like sweep variants). */
  | { kind: "variant" };

export interface Category {
  /** The value as shown in tables and records. */
  label: string;
  /** The typed run-option value (flag targets), or the label. */
  value: unknown;
  /** Run options set by a variant value (keyed like RunInput); {} otherwise. */
  flags: Record<string, unknown>;
}

export interface Parameter {
  name: string;
  type: ParamType;
  /** Numeric bounds (continuous, integer); 0 for categoricals. */
  min: number;
  max: number;
  /** Search on a log scale (numeric types). */
  log: boolean;
  /** Categorical values, in file order ([] for numeric types). */
  categories: Category[];
  target: ParamTarget;
}

/** One parameter value: a number, or a category label. */
export type ParamValue = number | string;

export type Bound = { kind: "value"; value: number } | { kind: "baseline"; factor: number };

export interface Constraint {
  metric: string;
  min: Bound | null;
  max: Bound | null;
}

export interface Objective {
  metric: string;
  direction: "minimize" | "maximize";
  /** Weights for `fitness` / `fitness.*` objectives and constraints ("" = none). */
  fitnessWeights: string;
  /**
   * What the GP models: `log` of the objective (tail latencies span orders of magnitude), `none`,
   * or `auto` = log while every observed value is > 0. The optimum is the same either way.
   */
  transform: "auto" | "log" | "none";
}

export interface OptimizeSpace {
  name: string;
  /** The file as given (error messages) and its absolute path. */
  file: string;
  source: string | null;
  /** Seed of the search itself (design, candidate points). */
  seed: number;
  /** Simulation seeds: an evaluation is the mean over these. */
  seeds: number[];
  budget: number;
  initial: number;
  timeoutS: number;
  /** Run options shared by every evaluation (the workload spec as an object). */
  base: RunInput;
  /** The base workload spec file (absolute), or null when it is inline or absent. */
  specFile: string | null;
  /** Run options of the baseline (base + baseline flags), or null without a baseline. */
  baseline: RunInput | null;
  parameters: Parameter[];
  objective: Objective;
  constraints: Constraint[];
  /** Identity of everything that determines the evaluations and the search path (not budget, not name). */
  hash: string;
}

const TOP_KEYS = ["name", "seed", "seeds", "budget", "initial", "timeout_s", "base", "baseline", "parameters", "objective", "constraints"];
const PARAM_KEYS = ["name", "type", "min", "max", "values", "log", "target"];
const TARGET_KINDS = ["flag", "scorer", "plugin_option"];


export const DEFAULT_BUDGET = 30;
export const DEFAULT_SEARCH_SEED = 1;

/** Default size of the initial design: max(5, budget/4), at most the budget. */
export function defaultInitial(budget: number): number {
  return Math.min(budget, Math.max(5, Math.floor(budget / 4)));
}

/** Reads and validates a search-space file. Throws SpaceError (one line) when it is invalid. */
export function loadSpace(file: string): OptimizeSpace {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SpaceError(`${file}: cannot read the space file${code ? ` (${code})` : ""}`);
  }
  return parseSpace(text, { file, baseDir: path.dirname(path.resolve(file)), source: path.resolve(file) });
}

export interface ParseSpaceOptions {
  file?: string;
  /** Directory relative paths are resolved against (default: cwd). */
  baseDir?: string;
  source?: string | null;
}

/** Parses search-space YAML text. Throws SpaceError naming the item and its line/column. */
export function parseSpace(text: string, opts: ParseSpaceOptions = {}): OptimizeSpace {
  const file = opts.file ?? "space.yaml";
  const baseDir = opts.baseDir ?? process.cwd();
  const y = new YamlSource(file, text, { error: (m) => new SpaceError(m), what: "space" });
  const top = y.map(y.root, "space", TOP_KEYS);
  const node = (k: string): Node | null => top.get(k)?.value ?? null;

  const name = top.has("name") ? y.str(node("name"), "name") : path.basename(file).replace(/\.ya?ml$/i, "");
  const seed = top.has("seed") ? y.int(node("seed"), "seed", 0) : DEFAULT_SEARCH_SEED;
  let seeds = DEFAULT_SEEDS.slice();
  if (top.has("seeds")) {
    const items = y.seq(node("seeds"), "seeds");
    if (items.length === 0) y.fail(node("seeds"), "seeds", "the seed list must not be empty");
    seeds = items.map((n, i) => {
      const v = y.num(n, `seeds[${i}]`);
      if (!Number.isSafeInteger(v)) y.fail(n, `seeds[${i}]`, `expected an integer, got ${y.text(n, `seeds[${i}]`)}`);
      return v;
    });
    const dup = seeds.find((s, i) => seeds.indexOf(s) !== i);
    if (dup !== undefined) y.fail(node("seeds"), "seeds", `seed ${dup} is listed twice`);
  }
  const budget = top.has("budget") ? y.int(node("budget"), "budget", 1) : DEFAULT_BUDGET;
  let initial = defaultInitial(budget);
  if (top.has("initial")) {
    initial = y.int(node("initial"), "initial", 1);
    if (initial > budget) y.fail(node("initial"), "initial", `the initial design (${initial}) is larger than the budget (${budget})`);
  }
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (top.has("timeout_s")) {
    timeoutS = y.num(node("timeout_s"), "timeout_s");
    if (!(timeoutS > 0)) y.fail(node("timeout_s"), "timeout_s", "expected a number of seconds > 0");
  }

  // base
  if (!top.has("base")) y.fail(y.root, "base", "missing key \"base\" (base.flags needs at least the model)");
  const baseEntries = y.map(node("base"), "base", ["flags", "workload_spec"]);
  const base: Record<string, unknown> = {};
  const baseFlagNodes = new Map<string, Node>();
  if (baseEntries.has("flags")) readFlags(y, baseEntries.get("flags")!.value, "base.flags", baseDir, SPACE_KIND, base, baseFlagNodes);
  let specFile: string | null = null;
  if (baseEntries.has("workload_spec")) {
    const sn = baseEntries.get("workload_spec")!.value;
    if (base["workloadSpec"] !== undefined) {
      y.fail(sn, "base.workload_spec", "use either base.workload_spec or the workload-spec flag, not both");
    }
    const r = readSpec(y, sn, baseDir);
    base["workloadSpecObject"] = r.spec;
    specFile = r.file;
  } else if (typeof base["workloadSpec"] === "string" && base["workloadSpec"] !== "") {
    specFile = base["workloadSpec"];
  }
  if (typeof base["model"] !== "string" || base["model"] === "") {
    y.fail(top.get("base")!.key, "base.flags", "no model: set base.flags model");
  }

  // baseline
  let baseline: RunInput | null = null;
  if (top.has("baseline")) {
    const be = y.map(node("baseline"), "baseline", ["flags"]);
    const flags: Record<string, unknown> = {};
    if (be.has("flags")) readFlags(y, be.get("flags")!.value, "baseline.flags", baseDir, SPACE_KIND, flags, new Map());
    baseline = { ...base, ...flags } as RunInput;
  }

  // parameters
  if (!top.has("parameters")) y.fail(y.root, "parameters", "missing key \"parameters\"");
  const pnodes = y.seq(node("parameters"), "parameters");
  if (pnodes.length === 0) y.fail(node("parameters"), "parameters", "the parameter list must not be empty");
  const hasPlugins = Array.isArray(base["plugin"]) && (base["plugin"] as unknown[]).length > 0;
  const parameters: Parameter[] = [];
  const owners = new Map<string, string>(); // run-option key / scorer / plugin option → owner
  pnodes.forEach((pn, i) => {
    const p = readParameter(y, pn, i, baseDir, hasPlugins);
    const item = `parameters[${i}] "${p.name}"`;
    if (parameters.some((q) => q.name === p.name)) y.fail(pn, item, "parameter names must be unique");
    const claim = (key: string, what: string): void => {
      const prev = owners.get(key);
      if (prev !== undefined) y.fail(pn, item, `${what} is also set by ${prev}`);
      owners.set(key, `parameter "${p.name}"`);
    };
    const t = p.target;
    if (t.kind === "flag") claim(`flag:${t.def.key}`, `flag "${t.flag}"`);
    else if (t.kind === "scorer") claim(`scorer:${t.scorer}`, `scorer "${t.scorer}"`);
    else if (t.kind === "plugin_option") claim(`plugin:${t.option}`, `plugin option "${t.option}"`);
    else {
      const keys = new Set(p.categories.flatMap((c) => Object.keys(c.flags)));
      for (const k of keys) claim(`flag:${k}`, `flag "${flagNameOf(k)}"`);
    }
    parameters.push(p);
  });
  const scorerParams = parameters.filter((p) => p.target.kind === "scorer");
  if (scorerParams.length > 0) {
    const first = pnodes[parameters.indexOf(scorerParams[0]!)]!;
    if (owners.has("flag:routingScorers")) y.fail(first, `parameters "${scorerParams[0]!.name}"`, `scorer parameters build --routing-scorers; ${owners.get("flag:routingScorers")} sets it too`);
    if (base["routingScorers"] !== undefined) {
      y.fail(baseFlagNodes.get("routing-scorers"), "base.flags \"routing-scorers\"", "the scorer parameters build --routing-scorers: remove it from base.flags");
    }
    if (base["routingPolicy"] !== "weighted" && !owners.has("flag:routingPolicy")) {
      y.fail(first, `parameters "${scorerParams[0]!.name}"`, "scorer weights only apply to weighted routing: set base.flags routing-policy: weighted");
    }
  }

  // objective
  if (!top.has("objective")) y.fail(y.root, "objective", "missing key \"objective\"");
  const oe = y.map(node("objective"), "objective", ["metric", "direction", "fitness_weights", "transform"]);
  if (!oe.has("metric")) y.fail(node("objective"), "objective", "missing key \"metric\"");
  const metric = checkMetric(y, oe.get("metric")!.value, "objective.metric");
  let direction: "minimize" | "maximize" = "minimize";
  if (oe.has("direction")) {
    const d = y.str(oe.get("direction")!.value, "objective.direction");
    if (d !== "minimize" && d !== "maximize") y.fail(oe.get("direction")!.value, "objective.direction", `expected minimize or maximize, got "${d}"`);
    direction = d as "minimize" | "maximize";
  }
  let fitnessWeights = typeof base["fitnessWeights"] === "string" ? (base["fitnessWeights"] as string) : "";
  if (oe.has("fitness_weights")) {
    const n = oe.get("fitness_weights")!.value;
    fitnessWeights = y.str(n, "objective.fitness_weights");
    try {
      parseFitnessWeights(fitnessWeights);
    } catch (e) {
      y.fail(n, "objective.fitness_weights", (e as Error).message);
    }
  }
  const needsWeights = (m: string): boolean => m === "fitness" || m.startsWith("fitness.");
  if (needsWeights(metric) && fitnessWeights === "") {
    y.fail(oe.get("metric")!.value, `objective.metric "${metric}"`, "fitness needs objective.fitness_weights (e.g. \"p99_ttft:1,throughput:0.5\")");
  }
  let transform: Objective["transform"] = "auto";
  if (oe.has("transform")) {
    const tn = oe.get("transform")!.value;
    const t = y.str(tn, "objective.transform");
    if (t !== "auto" && t !== "log" && t !== "none") y.fail(tn, "objective.transform", `expected auto, log or none, got "${t}"`);
    transform = t as Objective["transform"];
  }
  const objective: Objective = { metric, direction, fitnessWeights, transform };

  // constraints
  const constraints: Constraint[] = [];
  if (top.has("constraints")) {
    y.seq(node("constraints"), "constraints").forEach((cn, i) => {
      const item = `constraints[${i}]`;
      const ce = y.map(cn, item, ["metric", "min", "max"]);
      if (!ce.has("metric")) y.fail(cn, item, "missing key \"metric\"");
      const m = checkMetric(y, ce.get("metric")!.value, `${item} metric`);
      const it = `${item} "${m}"`;
      if (!ce.has("min") && !ce.has("max")) y.fail(cn, it, "give min, max or both");
      if (needsWeights(m) && fitnessWeights === "") y.fail(ce.get("metric")!.value, it, "fitness needs objective.fitness_weights");
      const bound = (k: "min" | "max"): Bound | null => {
        if (!ce.has(k)) return null;
        const bn = ce.get(k)!.value;
        const b = parseBound(y.text(bn, `${it} ${k}`));
        if (b === null) return y.fail(bn, `${it} ${k}`, `expected a number, "baseline" or "<factor> * baseline", got "${y.text(bn, `${it} ${k}`)}"`);
        if (b.kind === "baseline" && baseline === null) y.fail(bn, `${it} ${k}`, "refers to the baseline, but the space has no baseline section");
        return b;
      };
      const c: Constraint = { metric: m, min: bound("min"), max: bound("max") };
      if (c.min?.kind === "value" && c.max?.kind === "value" && c.min.value > c.max.value) y.fail(cn, it, "min is larger than max");
      constraints.push(c);
    });
  }

  const space: Omit<OptimizeSpace, "hash"> = {
    name,
    file,
    source: opts.source ?? null,
    seed,
    seeds,
    budget,
    initial,
    timeoutS,
    base: base as RunInput,
    specFile,
    baseline,
    parameters,
    objective,
    constraints,
  };
  return { ...space, hash: spaceHash(space) };
}

/** The identity of a space: what decides the runs and the search path (budget and name excluded). */
export function spaceHash(s: Omit<OptimizeSpace, "hash">): string {
  return canonicalHash({
    format: "blis-optimize/1",
    seed: s.seed,
    seeds: s.seeds,
    initial: s.initial,
    timeoutS: s.timeoutS,
    base: s.base,
    baseline: s.baseline,
    parameters: s.parameters.map((p) => ({
      name: p.name,
      type: p.type,
      min: p.min,
      max: p.max,
      log: p.log,
      categories: p.categories,
      target: p.target.kind === "flag" ? { kind: "flag", flag: p.target.flag } : p.target,
    })),
    objective: s.objective,
    constraints: s.constraints,
  });
}

/** `12.5`, `baseline`, `0.9 * baseline`, `0.9*baseline`, `baseline * 0.9`. */
export function parseBound(text: string): Bound | null {
  const t = text.trim();
  const num = (s: string): number | null => (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s.trim()) ? Number(s) : null);
  const n = num(t);
  if (n !== null) return { kind: "value", value: n };
  if (t === "baseline") return { kind: "baseline", factor: 1 };
  let m = /^(.+?)\s*\*\s*baseline$/.exec(t);
  if (m === null) m = /^baseline\s*\*\s*(.+)$/.exec(t);
  if (m !== null) {
    const f = num(m[1]!);
    if (f !== null && f >= 0) return { kind: "baseline", factor: f };
  }
  return null;
}

export function boundText(b: Bound): string {
  return b.kind === "value" ? String(b.value) : b.factor === 1 ? "baseline" : `${b.factor} × baseline`;
}


const FLAG_NAME_BY_KEY = new Map<string, string>(RUN_FLAGS.map((f) => [f.key, f.flag.slice(2)]));
function flagNameOf(key: string): string {
  return FLAG_NAME_BY_KEY.get(key) ?? key;
}





function readParameter(y: YamlSource, node: Node, i: number, baseDir: string, hasPlugins: boolean): Parameter {
  const e = y.map(node, `parameters[${i}]`, PARAM_KEYS);
  if (!e.has("name")) y.fail(node, `parameters[${i}]`, "missing key \"name\"");
  const name = y.str(e.get("name")!.value, `parameters[${i}] name`);
  const item = `parameters[${i}] "${name}"`;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) y.fail(e.get("name")!.value, item, "names may only contain letters, digits, '_', '.', '-'");
  if (!e.has("type")) y.fail(node, item, "missing key \"type\" (continuous, integer or categorical)");
  const typeNode = e.get("type")!.value;
  const type = y.str(typeNode, `${item} type`);
  if (type !== "continuous" && type !== "integer" && type !== "categorical") {
    y.fail(typeNode, `${item} type`, `expected continuous, integer or categorical, got "${type}"${didYouMean(type, ["continuous", "integer", "categorical"])}`);
  }
  if (!e.has("target")) y.fail(node, item, "missing key \"target\" (flag, scorer, plugin_option, or variant)");
  const target = readTarget(y, e.get("target")!.value, item, hasPlugins);
  const p: Parameter = { name, type, min: 0, max: 0, log: false, categories: [], target };

  if (type === "categorical") {
    for (const k of ["min", "max", "log"]) if (e.has(k)) y.fail(e.get(k)!.key, item, `"${k}" is only for continuous and integer parameters`);
    if (!e.has("values")) y.fail(node, item, "missing key \"values\"");
    const vn = e.get("values")!.value;
    const items = y.seq(vn, `${item} values`);
    if (items.length < 2) y.fail(vn ?? node, `${item} values`, "a categorical parameter needs at least two values");
    p.categories = items.map((n, k) => readCategory(y, n, `${item} values[${k}]`, target, baseDir));
    const labels = p.categories.map((c) => c.label);
    const dup = labels.find((l, k) => labels.indexOf(l) !== k);
    if (dup !== undefined) y.fail(vn, `${item} values`, `value "${dup}" is listed twice`);
    if (target.kind === "scorer") y.fail(e.get("target")!.value, item, "scorer weights are numbers: use type continuous or integer");
    return p;
  }

  if (e.has("values")) y.fail(e.get("values")!.key, item, "\"values\" is only for categorical parameters (numeric ones take min and max)");
  for (const k of ["min", "max"]) if (!e.has(k)) y.fail(node, item, `missing key "${k}"`);
  p.min = y.num(e.get("min")!.value, `${item} min`);
  p.max = y.num(e.get("max")!.value, `${item} max`);
  if (e.has("log")) p.log = y.bool(e.get("log")!.value, `${item} log`);
  if (type === "integer") {
    if (!Number.isSafeInteger(p.min)) y.fail(e.get("min")!.value, `${item} min`, "an integer parameter needs an integer min");
    if (!Number.isSafeInteger(p.max)) y.fail(e.get("max")!.value, `${item} max`, "an integer parameter needs an integer max");
  }
  if (!(p.min < p.max)) y.fail(e.get("max")!.value, item, `min (${p.min}) must be less than max (${p.max})`);
  if (p.log && !(p.min > 0)) y.fail(e.get("min")!.value, item, `a log-scale parameter needs min > 0, got ${p.min}`);
  const tn = e.get("target")!.value;
  if (target.kind === "variant") y.fail(tn, item, "a variant target needs a categorical parameter (values: [{name, flags}, ...])");
  if (target.kind === "scorer" && p.min < 0) y.fail(e.get("min")!.value, item, "scorer weights must be >= 0 (0 leaves the scorer out)");
  if (target.kind === "flag") {
    const t = target.def.type;
    const isInt = t === "int" || t === "int64";
    if (isInt && type === "continuous") y.fail(tn, item, `${target.def.flag} takes an integer: use type integer`);
    if (!isInt && t !== "float") y.fail(tn, item, `${target.def.flag} takes ${t === "bool" ? "true/false" : t === "string" ? "a string" : "a list"}: use type categorical`);
  }
  return p;
}

function readTarget(y: YamlSource, node: Node | null, item: string, hasPlugins: boolean): ParamTarget {
  const it = `${item} target`;
  if (y.deref(node) !== null && !y.isMap(node)) {
    const t = y.text(node, it);
    if (t === "variant") return { kind: "variant" };
    y.fail(node, it, `expected {flag: NAME}, {scorer: NAME}, {plugin_option: PLUGIN.KEY} or variant, got "${t}"`);
  }
  const e = y.map(node, it, TARGET_KINDS);
  if (e.size !== 1) y.fail(node, it, "give exactly one of flag, scorer or plugin_option");
  const [kind, entry] = [...e][0]!;
  const value = y.str(entry.value, `${it} ${kind}`);
  if (kind === "flag") {
    const def = lookupFlag(value, SPACE_KIND);
    if (typeof def === "string") y.fail(entry.value, it, def);
    if (def.type === "strings") y.fail(entry.value, it, `${def.flag} is repeatable and cannot be a parameter (use plugin_option for plugin options)`);
    if (def.key === "workloadSpec" || def.key === "model") y.fail(entry.value, it, `${def.flag} cannot be a parameter`);
    return { kind: "flag", flag: def.flag.slice(2), def };
  }
  if (kind === "scorer") {
    if (!hasPlugins && !scorers.has(value)) {
      y.fail(entry.value, it, `unknown scorer "${value}"${didYouMean(value, scorers.names())} (valid: ${scorers.names().join(", ")})`);
    }
    return { kind: "scorer", scorer: value };
  }
  if (!/^[^.=\s]+\.[^=\s]+$/.test(value)) y.fail(entry.value, it, `expected PLUGIN.KEY (e.g. my-scorer.alpha), got "${value}"`);
  return { kind: "plugin_option", option: value };
}

function readCategory(y: YamlSource, node: Node, item: string, target: ParamTarget, baseDir: string): Category {
  if (target.kind === "variant") {
    const e = y.map(node, item, ["name", "flags"]);
    if (!e.has("name")) y.fail(node, item, "missing key \"name\" (variant values are {name, flags})");
    const label = y.str(e.get("name")!.value, `${item} name`);
    const flags: Record<string, unknown> = {};
    if (e.has("flags")) readFlags(y, e.get("flags")!.value, `${item} "${label}" flags`, baseDir, SPACE_KIND, flags, new Map());
    return { label, value: label, flags };
  }
  const label = y.str(node, item);
  if (target.kind === "flag") return { label, value: flagValue(y, node, target.def, item, baseDir), flags: {} };
  return { label, value: label, flags: {} };
}

// Parameters of a search space: their types, and the `parameters` section of the space file
// (each parameter's type, range or values and target, and which run option it owns).

import type { Node } from "yaml";
import "../gateway/builtins.js";
import { scorers } from "../cluster/scorers/scorer.js";
import { runFlags, type AnyFlagDef } from "../config/runFlags.js";
import { flagValue, lookupFlag, readFlags, SPACE_KIND } from "../experiment/configYaml.js";
import { didYouMean } from "../util/didYouMean.js";
import type { Entry, YamlSource } from "../util/yamlSource.js";

export type ParamType = "continuous" | "integer" | "categorical";

/** Where a parameter's value goes. */
export type ParamTarget =
  /** A run flag (`flag: slo-age-weight`). */
  | { kind: "flag"; flag: string; def: AnyFlagDef }
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

/** The base run options, as far as the parameters depend on them. */
export interface ParameterContext {
  base: Record<string, unknown>;
  /** base.flags nodes by flag name (positions of errors about them). */
  baseFlagNodes: Map<string, Node>;
  /** Directory relative paths are resolved against. */
  baseDir: string;
}

const PARAM_KEYS = ["name", "type", "min", "max", "values", "log", "target"];
const TARGET_KINDS = ["flag", "scorer", "plugin_option"];

function flagNameOf(key: string): string {
  return (
    runFlags()
      .find((f) => f.key === key)
      ?.flag.slice(2) ?? key
  );
}

/** The `parameters` section: every parameter, each run option owned by at most one of them. */
export function readParameters(y: YamlSource, top: Map<string, Entry>, ctx: ParameterContext): Parameter[] {
  if (!top.has("parameters")) y.fail(y.root, "parameters", 'missing key "parameters"');
  const listNode = top.get("parameters")!.value;
  const pnodes = y.seq(listNode, "parameters");
  if (pnodes.length === 0) y.fail(listNode, "parameters", "the parameter list must not be empty");
  const hasPlugins = Array.isArray(ctx.base["plugin"]) && (ctx.base["plugin"] as unknown[]).length > 0;
  const parameters: Parameter[] = [];
  const owners = new Map<string, string>(); // run-option key / scorer / plugin option → owner
  pnodes.forEach((pn, i) => {
    const p = readParameter(y, pn, i, ctx.baseDir, hasPlugins);
    const item = `parameters[${i}] "${p.name}"`;
    if (parameters.some((q) => q.name === p.name)) y.fail(pn, item, "parameter names must be unique");
    claimOptions(y, pn, item, p, owners);
    parameters.push(p);
  });
  checkScorerParameters(y, parameters, pnodes, owners, ctx);
  return parameters;
}

/** Records what `p` sets in `owners`; fails when another parameter sets it already. */
function claimOptions(y: YamlSource, pn: Node, item: string, p: Parameter, owners: Map<string, string>): void {
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
}

/** Scorer parameters build --routing-scorers, so nothing else may set it, and routing must be weighted. */
function checkScorerParameters(
  y: YamlSource,
  parameters: Parameter[],
  pnodes: Node[],
  owners: Map<string, string>,
  ctx: ParameterContext,
): void {
  const scorerParams = parameters.filter((p) => p.target.kind === "scorer");
  if (scorerParams.length === 0) return;
  const first = pnodes[parameters.indexOf(scorerParams[0]!)]!;
  if (owners.has("flag:routingScorers"))
    y.fail(
      first,
      `parameters "${scorerParams[0]!.name}"`,
      `scorer parameters build --routing-scorers; ${owners.get("flag:routingScorers")} sets it too`,
    );
  if (ctx.base["routingScorers"] !== undefined) {
    y.fail(
      ctx.baseFlagNodes.get("routing-scorers"),
      'base.flags "routing-scorers"',
      "the scorer parameters build --routing-scorers: remove it from base.flags",
    );
  }
  if (ctx.base["routingPolicy"] !== "weighted" && !owners.has("flag:routingPolicy")) {
    y.fail(
      first,
      `parameters "${scorerParams[0]!.name}"`,
      "scorer weights only apply to weighted routing: set base.flags routing-policy: weighted",
    );
  }
}

function readParameter(y: YamlSource, node: Node, i: number, baseDir: string, hasPlugins: boolean): Parameter {
  const e = y.map(node, `parameters[${i}]`, PARAM_KEYS);
  if (!e.has("name")) y.fail(node, `parameters[${i}]`, 'missing key "name"');
  const name = y.str(e.get("name")!.value, `parameters[${i}] name`);
  const item = `parameters[${i}] "${name}"`;
  if (!/^[A-Za-z0-9_.-]+$/.test(name))
    y.fail(e.get("name")!.value, item, "names may only contain letters, digits, '_', '.', '-'");
  if (!e.has("type")) y.fail(node, item, 'missing key "type" (continuous, integer or categorical)');
  const typeNode = e.get("type")!.value;
  const type = y.str(typeNode, `${item} type`);
  if (type !== "continuous" && type !== "integer" && type !== "categorical") {
    y.fail(
      typeNode,
      `${item} type`,
      `expected continuous, integer or categorical, got "${type}"${didYouMean(type, ["continuous", "integer", "categorical"])}`,
    );
  }
  if (!e.has("target")) y.fail(node, item, 'missing key "target" (flag, scorer, plugin_option, or variant)');
  const target = readTarget(y, e.get("target")!.value, item, hasPlugins);
  const p: Parameter = { name, type, min: 0, max: 0, log: false, categories: [], target };
  if (type === "categorical") readCategorical(y, node, e, item, p, baseDir);
  else readNumeric(y, node, e, item, p);
  return p;
}

/** The values of a categorical parameter. */
function readCategorical(
  y: YamlSource,
  node: Node,
  e: Map<string, Entry>,
  item: string,
  p: Parameter,
  baseDir: string,
): void {
  for (const k of ["min", "max", "log"])
    if (e.has(k)) y.fail(e.get(k)!.key, item, `"${k}" is only for continuous and integer parameters`);
  if (!e.has("values")) y.fail(node, item, 'missing key "values"');
  const vn = e.get("values")!.value;
  const items = y.seq(vn, `${item} values`);
  if (items.length < 2) y.fail(vn ?? node, `${item} values`, "a categorical parameter needs at least two values");
  p.categories = items.map((n, k) => readCategory(y, n, `${item} values[${k}]`, p.target, baseDir));
  const labels = p.categories.map((c) => c.label);
  const dup = labels.find((l, k) => labels.indexOf(l) !== k);
  if (dup !== undefined) y.fail(vn, `${item} values`, `value "${dup}" is listed twice`);
  if (p.target.kind === "scorer")
    y.fail(e.get("target")!.value, item, "scorer weights are numbers: use type continuous or integer");
}

/** The range (and scale) of a continuous or integer parameter, checked against its target. */
function readNumeric(y: YamlSource, node: Node, e: Map<string, Entry>, item: string, p: Parameter): void {
  if (e.has("values"))
    y.fail(e.get("values")!.key, item, '"values" is only for categorical parameters (numeric ones take min and max)');
  for (const k of ["min", "max"]) if (!e.has(k)) y.fail(node, item, `missing key "${k}"`);
  p.min = y.num(e.get("min")!.value, `${item} min`);
  p.max = y.num(e.get("max")!.value, `${item} max`);
  if (e.has("log")) p.log = y.bool(e.get("log")!.value, `${item} log`);
  if (p.type === "integer") {
    if (!Number.isSafeInteger(p.min))
      y.fail(e.get("min")!.value, `${item} min`, "an integer parameter needs an integer min");
    if (!Number.isSafeInteger(p.max))
      y.fail(e.get("max")!.value, `${item} max`, "an integer parameter needs an integer max");
  }
  if (!(p.min < p.max)) y.fail(e.get("max")!.value, item, `min (${p.min}) must be less than max (${p.max})`);
  if (p.log && !(p.min > 0)) y.fail(e.get("min")!.value, item, `a log-scale parameter needs min > 0, got ${p.min}`);
  checkNumericTarget(y, e, item, p);
}

/** A numeric parameter's target must take numbers of its type (variants and non-numeric flags are categorical). */
function checkNumericTarget(y: YamlSource, e: Map<string, Entry>, item: string, p: Parameter): void {
  const tn = e.get("target")!.value;
  const target = p.target;
  if (target.kind === "variant")
    y.fail(tn, item, "a variant target needs a categorical parameter (values: [{name, flags}, ...])");
  if (target.kind === "scorer" && p.min < 0)
    y.fail(e.get("min")!.value, item, "scorer weights must be >= 0 (0 leaves the scorer out)");
  if (target.kind === "flag") {
    const t = target.def.type;
    const isInt = t === "int" || t === "int64";
    if (isInt && p.type === "continuous") y.fail(tn, item, `${target.def.flag} takes an integer: use type integer`);
    if (!isInt && t !== "float")
      y.fail(
        tn,
        item,
        `${target.def.flag} takes ${t === "bool" ? "true/false" : t === "string" ? "a string" : "a list"}: use type categorical`,
      );
  }
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
    if (def.type === "strings")
      y.fail(
        entry.value,
        it,
        `${def.flag} is repeatable and cannot be a parameter (use plugin_option for plugin options)`,
      );
    if (def.key === "workloadSpec" || def.key === "model") y.fail(entry.value, it, `${def.flag} cannot be a parameter`);
    return { kind: "flag", flag: def.flag.slice(2), def };
  }
  if (kind === "scorer") {
    if (!hasPlugins && !scorers.has(value)) {
      y.fail(
        entry.value,
        it,
        `unknown scorer "${value}"${didYouMean(value, scorers.names())} (valid: ${scorers.names().join(", ")})`,
      );
    }
    return { kind: "scorer", scorer: value };
  }
  if (!/^[^.=\s]+\.[^=\s]+$/.test(value))
    y.fail(entry.value, it, `expected PLUGIN.KEY (e.g. my-scorer.alpha), got "${value}"`);
  return { kind: "plugin_option", option: value };
}

function readCategory(y: YamlSource, node: Node, item: string, target: ParamTarget, baseDir: string): Category {
  if (target.kind === "variant") {
    const e = y.map(node, item, ["name", "flags"]);
    if (!e.has("name")) y.fail(node, item, 'missing key "name" (variant values are {name, flags})');
    const label = y.str(e.get("name")!.value, `${item} name`);
    const flags: Record<string, unknown> = {};
    if (e.has("flags"))
      readFlags(y, e.get("flags")!.value, `${item} "${label}" flags`, baseDir, SPACE_KIND, flags, new Map());
    return { label, value: label, flags };
  }
  const label = y.str(node, item);
  if (target.kind === "flag") return { label, value: flagValue(y, node, target.def, item, baseDir), flags: {} };
  return { label, value: label, flags: {} };
}

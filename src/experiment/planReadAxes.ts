// Readers of a plan file's grid items: `axes` entries and `variants` bundles, with the YAML nodes
// kept so that later cross-item checks can point at the offending line.

import { isMap, isScalar, type Node, type Pair, type YAMLMap } from "yaml";
import { flagValue, lookupFlag, PLAN_KIND, readFlags } from "./configYaml.js";
import type { SweepAxis } from "./planTypes.js";
import { parseSpecPath, type SpecPath } from "./specPath.js";
import { scalarText, type YamlSource } from "../util/yamlSource.js";

/** A spec change: path as written, parsed path, value, and the node to blame. */
export type SpecOverride = [string, SpecPath, unknown, Node];

export interface VariantDef {
  name: string;
  node: Node;
  flags: Record<string, unknown>;
  flagNodes: Map<string, Node>;
  overrides: SpecOverride[];
}

export interface AxisDef {
  axis: SweepAxis;
  node: Node;
  /** Run option key for flag axes, "" for spec axes. */
  key: string;
  specPath: SpecPath | null;
  values: unknown[];
  valueNodes: Node[];
}

export function readAxis(src: YamlSource, node: Node, i: number, baseDir: string): AxisDef {
  const e = src.map(node, `axes[${i}]`, ["name", "flag", "spec", "values", "labels"]);
  if (!e.has("name")) src.fail(node, `axes[${i}]`, 'missing key "name"');
  const name = src.str(e.get("name")!.value, `axes[${i}] name`);
  const item = `axes[${i}] "${name}"`;
  if (/[=,]/.test(name)) src.fail(e.get("name")!.value, item, "axis names must not contain '=' or ','");
  if (e.has("flag") === e.has("spec")) src.fail(node, item, 'give exactly one of "flag" or "spec"');
  if (!e.has("values")) src.fail(node, item, 'missing key "values"');
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
    if (specPath === null)
      src.fail(
        e.get("spec")!.value,
        item,
        `"${target}" is not a spec path (e.g. aggregate_rate, clients[0].arrival.cv)`,
      );
    values = valueNodes.map((n) => src.js(n));
  }
  const texts = valueNodes.map((n, k) =>
    isScalar(n) ? scalarText(n) || String(values[k]) : JSON.stringify(values[k]),
  );
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
  if (!e.has("name")) src.fail(node, `variants[${i}]`, 'missing key "name"');
  const name = src.str(e.get("name")!.value, `variants[${i}] name`);
  const item = `variants[${i}] "${name}"`;
  if (/[,]/.test(name)) src.fail(e.get("name")!.value, item, "variant names must not contain ','");
  const flags: Record<string, unknown> = {};
  const flagNodes = new Map<string, Node>();
  if (e.has("flags")) readFlags(src, e.get("flags")!.value, `${item} flags`, baseDir, PLAN_KIND, flags, flagNodes);
  const overrides: SpecOverride[] = [];
  if (e.has("spec_overrides")) {
    const m = src.deref(e.get("spec_overrides")!.value);
    if (m !== null) {
      if (!isMap(m)) src.fail(m, `${item} spec_overrides`, "expected a mapping of spec path → value");
      for (const pair of (m as YAMLMap).items as Pair[]) {
        const k = pair.key as Node;
        const p = isScalar(k) ? String(k.value) : "";
        const sp = parseSpecPath(p);
        if (sp === null)
          src.fail(
            k,
            `${item} spec_overrides`,
            `"${p}" is not a spec path (e.g. aggregate_rate, clients[0].arrival.cv)`,
          );
        overrides.push([p, sp, src.js(src.deref((pair.value as Node | null) ?? null)), k]);
      }
    }
  }
  return { name, node, flags, flagNodes, overrides };
}

/** The `variants` list: a non-empty list of bundles with unique names. */
export function readVariants(src: YamlSource, node: Node | null, baseDir: string): VariantDef[] {
  const items = src.seq(node, "variants");
  if (items.length === 0) src.fail(node, "variants", "the variant list must not be empty");
  const variants: VariantDef[] = [];
  items.forEach((n, i) => variants.push(readVariant(src, n, i, baseDir)));
  const seen = new Set<string>();
  for (const v of variants) {
    if (seen.has(v.name)) src.fail(v.node, `variants "${v.name}"`, "variant names must be unique");
    seen.add(v.name);
  }
  return variants;
}

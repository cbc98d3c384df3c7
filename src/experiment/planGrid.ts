// The configuration grid of a plan file: cross-item consistency of base, axes and variants, and
// their expansion into one configuration per point (Cartesian product, first axis outermost).

import type { Node } from "yaml";
import type { RunInput } from "../config/runOptions.js";
import type { YamlSource } from "../util/yamlSource.js";
import { decodeWorkloadSpec, type WorkloadSpec } from "../workload/index.js";
import type { AxisDef, VariantDef } from "./planReadAxes.js";
import { VARIANT_AXIS, type SweepAxis, type SweepConfig } from "./planTypes.js";
import { setSpecPath, type SpecPath } from "./specPath.js";

/** `base`: flags and workload spec shared by every configuration. */
export interface PlanBase {
  flags: Record<string, unknown>;
  flagNodes: Map<string, Node>;
  spec: WorkloadSpec | null;
  specNode: Node | null;
}

export interface GridItems {
  base: PlanBase;
  axisDefs: AxisDef[];
  variants: VariantDef[];
  /** Blamed when the grid is too large. */
  axesNode: Node | null;
  /** Blamed when a configuration has no model. */
  baseNode: Node;
}

/** A spec change of one configuration, with the node and item named when it does not apply. */
type SpecChange = [string, SpecPath, unknown, Node, string];

const MAX_CONFIGS = 100000;

/** Names are unique, and no flag or spec path is set by two axes or by an axis and a variant. */
export function checkOwnership(src: YamlSource, axisDefs: AxisDef[], variants: VariantDef[]): void {
  const axisNames = new Set<string>();
  const flagOwners = new Map<string, string>();
  const specOwners = new Map<string, string>();
  axisDefs.forEach((a, i) => {
    const item = `axes[${i}] "${a.axis.name}"`;
    if (axisNames.has(a.axis.name)) src.fail(a.node, item, "axis names must be unique");
    if (variants.length > 0 && a.axis.name === VARIANT_AXIS)
      src.fail(a.node, item, `the axis name "${VARIANT_AXIS}" is reserved for variants`);
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
}

/**
 * Workload spec sources must not conflict: an in-memory spec (base.workload_spec) wins over a
 * --workload-spec flag, so both at once would silently ignore one of them. Spec paths need the
 * in-memory spec.
 */
export function checkSpecSources(src: YamlSource, base: PlanBase, axisDefs: AxisDef[], variants: VariantDef[]): void {
  const specFlagUsers: Node[] = [];
  if (base.flagNodes.has("workload-spec")) specFlagUsers.push(base.flagNodes.get("workload-spec")!);
  for (const a of axisDefs) if (a.axis.kind === "flag" && a.axis.target === "workload-spec") specFlagUsers.push(a.node);
  for (const v of variants) if (v.flagNodes.has("workload-spec")) specFlagUsers.push(v.flagNodes.get("workload-spec")!);
  const needsSpec =
    axisDefs.find((a) => a.axis.kind === "spec")?.node ??
    variants.find((v) => v.overrides.length > 0)?.overrides[0]![3] ??
    null;
  if (base.spec !== null && specFlagUsers.length > 0) {
    src.fail(specFlagUsers[0], "workload-spec", "use either base.workload_spec or the workload-spec flag, not both");
  }
  if (needsSpec !== null && base.spec === null) {
    src.fail(needsSpec, "spec", "spec paths need base.workload_spec (a spec file or an inline spec)");
  }
}

/** Every point of the grid as a configuration (dirs not yet assigned), plus the axes incl. `variant`. */
export function expandGrid(src: YamlSource, grid: GridItems): { axes: SweepAxis[]; configs: SweepConfig[] } {
  const axes: SweepAxis[] = grid.axisDefs.map((a) => a.axis);
  if (grid.variants.length > 0) {
    const names = grid.variants.map((v) => v.name);
    axes.push({ name: VARIANT_AXIS, kind: "variant", target: "", labels: names, texts: names, numeric: null });
  }
  const configs: SweepConfig[] = [];
  const dims = axes.map((a) => a.labels.length);
  const total = dims.reduce((x, y) => x * y, 1);
  if (total > MAX_CONFIGS)
    src.fail(grid.axesNode, "axes", `the grid has ${total} configurations; at most ${MAX_CONFIGS} are supported`);
  for (let c = 0; c < total; c++) configs.push(buildConfig(src, grid, axes, gridPoint(c, dims), c));
  return { axes, configs };
}

/** Mixed-radix digits of `c`, first axis outermost. */
function gridPoint(c: number, dims: number[]): number[] {
  const idx: number[] = new Array<number>(dims.length);
  let rem = c;
  for (let k = dims.length - 1; k >= 0; k--) {
    idx[k] = rem % dims[k]!;
    rem = Math.floor(rem / dims[k]!);
  }
  return idx;
}

function buildConfig(src: YamlSource, grid: GridItems, axes: SweepAxis[], idx: number[], index: number): SweepConfig {
  const coords: Record<string, string> = {};
  const input: Record<string, unknown> = { ...grid.base.flags };
  const specChanges: SpecChange[] = [];
  axes.forEach((axis, k) => {
    coords[axis.name] = axis.labels[idx[k]!]!;
    if (axis.kind === "variant") {
      const v = grid.variants[idx[k]!]!;
      Object.assign(input, v.flags);
      for (const [p, sp, val, node] of v.overrides)
        specChanges.push([p, sp, val, node, `variants "${v.name}" spec_overrides "${p}"`]);
    }
  });
  // Axis values override variant bundles (they never overlap, checked by checkOwnership).
  grid.axisDefs.forEach((a, k) => {
    const val = a.values[idx[k]!];
    if (a.axis.kind === "flag") input[a.key] = val;
    else
      specChanges.push([
        a.axis.target,
        a.specPath!,
        val,
        a.valueNodes[idx[k]!]!,
        `axes[${k}] "${a.axis.name}" value ${a.axis.labels[idx[k]!]}`,
      ]);
  });
  if (grid.base.spec !== null)
    input["workloadSpecObject"] = changedSpec(src, grid.base.spec, grid.base.specNode, specChanges);
  const label = axes.length === 0 ? "base" : axes.map((a) => `${a.name}=${coords[a.name]}`).join(",");
  if (typeof input["model"] !== "string" || input["model"] === "") {
    src.fail(grid.baseNode, "base.flags", `configuration "${label}" has no model: set base.flags model`);
  }
  return { index, label, coords, input: input as RunInput, dir: "" };
}

/** A copy of the base spec with `changes` applied, validated; blames the last change when invalid. */
function changedSpec(
  src: YamlSource,
  baseSpec: WorkloadSpec,
  baseSpecNode: Node | null,
  changes: SpecChange[],
): WorkloadSpec {
  const spec = structuredClone(baseSpec);
  for (const [p, sp, val, node, item] of changes) {
    const err = setSpecPath(spec, sp, structuredClone(val));
    if (err !== null) src.fail(node, item, `spec path "${p}": ${err}`);
  }
  try {
    return decodeWorkloadSpec(spec, "workload spec");
  } catch (e) {
    const where = changes.length > 0 ? changes[changes.length - 1]! : null;
    return src.fail(where?.[3] ?? baseSpecNode, where?.[4] ?? "base.workload_spec", (e as Error).message);
  }
}

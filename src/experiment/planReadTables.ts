// Readers of the plan items that shape the tables rather than the runs: baseline, metrics, ratios
// and checks. They resolve configuration references against the already expanded grid.

import { isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from "yaml";
import { didYouMean } from "../util/didYouMean.js";
import { scalarText, type YamlSource } from "../util/yamlSource.js";
import { checkMetric } from "./configYaml.js";
import { matching, matchValue, pairs, parseSelectorOrFail, type SelectorContext } from "./planSelectors.js";
import type { MonotonicDef, RatioDef, Selector, SweepAxis, SweepChecks } from "./planTypes.js";

/** A configuration reference that must designate at least one configuration. */
function readSelector(src: YamlSource, node: Node | null, item: string, ctx: SelectorContext): Selector {
  const t = src.str(node, item);
  const s = parseSelectorOrFail(ctx, t, (msg) => src.fail(node, `${item} "${t}"`, msg));
  if (matching(ctx, s).length === 0) src.fail(node, `${item} "${t}"`, "matches no configuration");
  return s;
}

export function readBaseline(src: YamlSource, node: Node | null, ctx: SelectorContext): Selector {
  return readSelector(src, node, "baseline", ctx);
}

/** The plan's `metrics` list: non-empty, known metrics, each once. */
export function readMetrics(src: YamlSource, node: Node | null): string[] {
  const items = src.seq(node, "metrics");
  if (items.length === 0) src.fail(node, "metrics", "the metric list must not be empty");
  const metrics = items.map((n, i) => checkMetric(src, n, `metrics[${i}]`));
  const dup = metrics.find((m, i) => metrics.indexOf(m) !== i);
  if (dup !== undefined) src.fail(node, "metrics", `metric "${dup}" is listed twice`);
  return metrics;
}

export function readRatio(
  src: YamlSource,
  node: Node,
  i: number,
  ctx: SelectorContext,
  planMetrics: string[],
): RatioDef {
  const e = src.map(node, `ratios[${i}]`, ["name", "numerator", "denominator", "metric", "metrics"]);
  const name0 = e.has("name") ? src.str(e.get("name")!.value, `ratios[${i}] name`) : null;
  const item = name0 !== null ? `ratios[${i}] "${name0}"` : `ratios[${i}]`;
  for (const k of ["numerator", "denominator"]) if (!e.has(k)) src.fail(node, item, `missing key "${k}"`);
  const numerator = readSelector(src, e.get("numerator")!.value, `${item} numerator`, ctx);
  const denominator = readSelector(src, e.get("denominator")!.value, `${item} denominator`, ctx);
  if (e.has("metric") && e.has("metrics")) src.fail(node, item, 'give either "metric" or "metrics"');
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

export function readChecks(src: YamlSource, node: Node | null, axes: SweepAxis[]): SweepChecks {
  const out: SweepChecks = { conservation: true, determinism: false, monotonic: [] };
  node = src.deref(node);
  if (node === null) return out;
  const mono = (n: Node | null, item: string): void => {
    n = src.deref(n);
    const list =
      n !== null && isSeq(n) ? src.seq(n, item).map((x, k) => [x, `${item}[${k}]`] as const) : [[n, item] as const];
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
    src.fail(
      e.get("axis")!.value,
      `${item} axis "${axisName}"`,
      `no such axis${didYouMean(
        axisName,
        axes.map((a) => a.name),
      )}`,
    );
  }
  if (axis.numeric === null)
    src.fail(e.get("axis")!.value, `${item} axis "${axisName}"`, "the axis values must all be numbers");
  const metric = checkMetric(src, e.get("metric")!.value, `${item} metric`);
  const direction = src.text(e.get("direction")!.value, `${item} direction`);
  if (direction !== "increasing" && direction !== "decreasing") {
    src.fail(e.get("direction")!.value, `${item} direction`, `expected increasing or decreasing, got "${direction}"`);
  }
  const where = e.has("where") ? readWhere(src, e.get("where")!.value, item, axisName, axes) : {};
  return { axis: axisName, metric, direction, where };
}

/** A monotonic check's `where`: fixed values of the other axes. */
function readWhere(
  src: YamlSource,
  node: Node | null,
  item: string,
  axisName: string,
  axes: SweepAxis[],
): Record<string, string> {
  const where: Record<string, string> = {};
  const w = src.deref(node);
  if (w === null || !isMap(w)) src.fail(w, `${item} where`, "expected a mapping of axis → value");
  for (const pair of (w as YAMLMap).items as Pair[]) {
    const k = pair.key as Node;
    const an = isScalar(k) ? String(k.value) : "";
    const ax = axes.find((a) => a.name === an);
    if (ax === undefined || an === axisName)
      src.fail(k, `${item} where "${an}"`, an === axisName ? "cannot fix the checked axis" : "no such axis");
    const vn = src.deref((pair.value as Node | null) ?? null);
    const vt = scalarText(src.scalar(vn, `${item} where "${an}"`)) ?? "";
    const label = matchValue(ax, vt);
    if (label === null)
      src.fail(vn, `${item} where "${an}"`, `no value "${vt}" in axis "${an}" (values: ${ax.labels.join(", ")})`);
    where[an] = label;
  }
  return where;
}

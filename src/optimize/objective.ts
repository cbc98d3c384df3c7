// The objective and constraints of a search space: their types, the `objective` and
// `constraints` sections of the space file, and constraint bounds (`0.9 * baseline`).

import type { Node } from "yaml";
import { checkMetric } from "../experiment/configYaml.js";
import { parseFitnessWeights } from "../metrics/fitness.js";
import type { Entry, YamlSource } from "../util/yamlSource.js";

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

/** `fitness` and `fitness.*` are computed from weights the space has to give. */
function needsWeights(metric: string): boolean {
  return metric === "fitness" || metric.startsWith("fitness.");
}

/** The `objective` section; `baseWeights` are base.flags fitness-weights ("" = none). */
export function readObjective(y: YamlSource, top: Map<string, Entry>, baseWeights: string): Objective {
  if (!top.has("objective")) y.fail(y.root, "objective", 'missing key "objective"');
  const node = top.get("objective")!.value;
  const oe = y.map(node, "objective", ["metric", "direction", "fitness_weights", "transform"]);
  if (!oe.has("metric")) y.fail(node, "objective", 'missing key "metric"');
  const metric = checkMetric(y, oe.get("metric")!.value, "objective.metric");
  let direction: Objective["direction"] = "minimize";
  if (oe.has("direction")) {
    const d = y.str(oe.get("direction")!.value, "objective.direction");
    if (d !== "minimize" && d !== "maximize")
      y.fail(oe.get("direction")!.value, "objective.direction", `expected minimize or maximize, got "${d}"`);
    direction = d as Objective["direction"];
  }
  let fitnessWeights = baseWeights;
  if (oe.has("fitness_weights")) {
    const n = oe.get("fitness_weights")!.value;
    fitnessWeights = y.str(n, "objective.fitness_weights");
    try {
      parseFitnessWeights(fitnessWeights);
    } catch (e) {
      y.fail(n, "objective.fitness_weights", (e as Error).message);
    }
  }
  if (needsWeights(metric) && fitnessWeights === "") {
    y.fail(
      oe.get("metric")!.value,
      `objective.metric "${metric}"`,
      'fitness needs objective.fitness_weights (e.g. "p99_ttft:1,throughput:0.5")',
    );
  }
  let transform: Objective["transform"] = "auto";
  if (oe.has("transform")) {
    const tn = oe.get("transform")!.value;
    const t = y.str(tn, "objective.transform");
    if (t !== "auto" && t !== "log" && t !== "none")
      y.fail(tn, "objective.transform", `expected auto, log or none, got "${t}"`);
    transform = t as Objective["transform"];
  }
  return { metric, direction, fitnessWeights, transform };
}

/** The `constraints` section ([] when absent). Baseline bounds need a baseline section. */
export function readConstraints(
  y: YamlSource,
  top: Map<string, Entry>,
  objective: Objective,
  hasBaseline: boolean,
): Constraint[] {
  if (!top.has("constraints")) return [];
  return y
    .seq(top.get("constraints")!.value, "constraints")
    .map((cn, i) => readConstraint(y, cn, `constraints[${i}]`, objective, hasBaseline));
}

function readConstraint(y: YamlSource, cn: Node, item: string, objective: Objective, hasBaseline: boolean): Constraint {
  const ce = y.map(cn, item, ["metric", "min", "max"]);
  if (!ce.has("metric")) y.fail(cn, item, 'missing key "metric"');
  const m = checkMetric(y, ce.get("metric")!.value, `${item} metric`);
  const it = `${item} "${m}"`;
  if (!ce.has("min") && !ce.has("max")) y.fail(cn, it, "give min, max or both");
  if (needsWeights(m) && objective.fitnessWeights === "")
    y.fail(ce.get("metric")!.value, it, "fitness needs objective.fitness_weights");
  const bound = (k: "min" | "max"): Bound | null => {
    if (!ce.has(k)) return null;
    const bn = ce.get(k)!.value;
    const b = parseBound(y.text(bn, `${it} ${k}`));
    if (b === null)
      return y.fail(
        bn,
        `${it} ${k}`,
        `expected a number, "baseline" or "<factor> * baseline", got "${y.text(bn, `${it} ${k}`)}"`,
      );
    if (b.kind === "baseline" && !hasBaseline)
      y.fail(bn, `${it} ${k}`, "refers to the baseline, but the space has no baseline section");
    return b;
  };
  const c: Constraint = { metric: m, min: bound("min"), max: bound("max") };
  if (c.min?.kind === "value" && c.max?.kind === "value" && c.min.value > c.max.value)
    y.fail(cn, it, "min is larger than max");
  return c;
}

/** `12.5`, `baseline`, `0.9 * baseline`, `0.9*baseline`, `baseline * 0.9`. */
export function parseBound(text: string): Bound | null {
  const t = text.trim();
  const num = (s: string): number | null =>
    /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s.trim()) ? Number(s) : null;
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

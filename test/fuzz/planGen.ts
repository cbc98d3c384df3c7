// Sweep plans (examples/experiments/README.md "Plan keys", src/experiment/planParse.ts) and
// search spaces (examples/optimize/strategy.yaml, src/optimize/space.ts), shaped like the examples
// but with one or two seeds, two or three configurations and a few short requests per run.

import fc from "fast-check";
import { LLAMA } from "./runArgs.js";
import { FLAG_GENS, type Value } from "./flagValues.js";
import { SPEC_KEYS, specArb } from "./specGen.js";
import type { Json } from "./yamlGen.js";
import type { FuzzFile } from "./case.js";

/** base.flags of a tiny run, as a plan or space writes them. */
const TINY_FLAGS: Record<string, Json> = {
  "num-requests": 2,
  "prompt-tokens": 20,
  "prompt-tokens-stdev": 5,
  "prompt-tokens-max": 50,
  "output-tokens": 5,
  "output-tokens-stdev": 2,
  "output-tokens-max": 10,
  log: "error",
};

/** Every key of a plan (examples/experiments/README.md "Plan keys"): an error may name one the file lacks. */
export const PLAN_KEYS = [
  "name",
  "seeds",
  "timeout_s",
  "allow_failures",
  "base",
  "flags",
  "workload_spec",
  "axes",
  "flag",
  "spec",
  "values",
  "labels",
  "variants",
  "spec_overrides",
  "baseline",
  "metrics",
  "ratios",
  "numerator",
  "denominator",
  "metric",
  "checks",
  "conservation",
  "determinism",
  "monotonic",
  "axis",
  "direction",
  "where",
  "report",
  "pareto",
];
/** Every key of a search space (src/optimize/space.ts, parameters.ts, objective.ts). */
export const SPACE_KEYS = [
  "name",
  "seed",
  "seeds",
  "budget",
  "initial",
  "timeout_s",
  "base",
  "flags",
  "workload_spec",
  "baseline",
  "parameters",
  "type",
  "min",
  "max",
  "values",
  "log",
  "target",
  "flag",
  "scorer",
  "plugin_option",
  "variant",
  "objective",
  "metric",
  "direction",
  "transform",
  "fitness_weights",
  "constraints",
];

export interface Generated {
  value: Json;
  /** Files the value refers to (relative names next to the plan or space file). */
  files: FuzzFile[];
  dirs: string[];
  /** Keys of the files the flags name. */
  keys: string[];
}

/** base.flags: the tiny run, sometimes blackbox or a cluster, plus a generated flag (its value as text). */
const baseFlagsArb: fc.Arbitrary<{ flags: Record<string, Json>; values: Value[] }> = fc
  .tuple(
    fc.constantFrom<Record<string, Json>>(
      { model: LLAMA },
      { model: "test-model", "alpha-coeffs": [100, 1, 100], "beta-coeffs": "1000,2,1" },
      { model: LLAMA, "num-instances": 2, "routing-policy": "weighted" },
    ),
    fc.option(
      fc.constantFrom(...FLAG_GENS).chain((g) => g.value.map((value) => ({ name: g.flag.slice(2), value }))),
      { freq: 3 },
    ),
    fc.oneof(
      { weight: 12, arbitrary: fc.constant<Record<string, Json>>({}) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Record<string, Json>>(
          { model: "" },
          { seed: 1 },
          { "results-path": "r.json" },
          { "bogus-flag": 1 },
          { rate: null },
          { "--rate": 10 },
        ),
      },
    ),
  )
  .map(([kind, extra, odd]) => ({
    flags: { ...TINY_FLAGS, ...kind, ...(extra === null ? {} : { [extra.name]: extra.value.text }), ...odd },
    values: extra === null ? [] : [extra.value],
  }));

type Spec = "none" | "file" | "inline";

/** Adds `base` (flags, and the workload spec in a file, inline or none) to a plan or space. */
function withBase(top: Record<string, Json>, spec: Spec): fc.Arbitrary<Generated> {
  return fc.tuple(baseFlagsArb, specArb).map(([base, specValue]) => {
    const b: Record<string, Json> = { flags: base.flags };
    const files = base.values.flatMap((v) => v.files);
    if (spec === "file") {
      b["workload_spec"] = "spec.yaml";
      files.push({ name: "spec.yaml", content: JSON.stringify(specValue) });
    }
    if (spec === "inline") b["workload_spec"] = specValue;
    return {
      value: { ...top, base: b },
      files,
      dirs: base.values.flatMap((v) => v.dirs),
      keys: [...SPEC_KEYS, ...base.values.flatMap((v) => v.keys)],
    };
  });
}

const specArg = fc.constantFrom<Spec>("none", "none", "file", "inline");

interface Axis {
  name: string;
  values: Json[];
  def: Record<string, Json>;
}

const FLAG_AXES: Axis[] = [
  { name: "inst", values: [1, 2], def: { flag: "num-instances" } },
  { name: "rate", values: [10, 100], def: { flag: "rate" } },
  { name: "route", values: ["round-robin", "least-loaded"], def: { flag: "routing-policy" } },
  { name: "kv", values: [100, 100000], def: { flag: "total-kv-blocks", labels: ["small", "large"] } },
];
const SPEC_AXES: Axis[] = [
  { name: "ar", values: [10, 100], def: { spec: "aggregate_rate" } },
  { name: "nreq", values: [1, 2], def: { spec: "num_requests" } },
];

const METRICS = [
  "ttft_mean",
  "ttft_p99",
  "e2e_mean",
  "throughput",
  "completed",
  "tokens_per_sec",
  "per_slo.critical.ttft_p99",
  "instance_0.completed",
  "cache_hit_rate",
  "rejected",
  "generated",
];

/** Baseline, ratios and checks that refer to the plan's own axes (the first one, or the variants). */
function tablesArb(first: Axis, variants: boolean): fc.Arbitrary<Record<string, Json>> {
  const label = (v: Json): string => {
    const labels = first.def["labels"];
    return Array.isArray(labels) ? String(labels[first.values.indexOf(v)]) : String(v);
  };
  const a = `${first.name}=${label(first.values[0]!)}`;
  const b = `${first.name}=${label(first.values[1]!)}`;
  const numeric = first.values.every((v) => typeof v === "number") && first.def["labels"] === undefined;
  return fc.record(
    {
      baseline: fc.constantFrom(a, ...(variants ? ["variant=a"] : [])),
      metrics: fc.subarray(METRICS, { minLength: 1, maxLength: 4 }),
      ratios: fc.constant<Json>([{ name: "r", numerator: b, denominator: a, metric: "ttft_p99" }]),
      checks: fc.record(
        {
          conservation: fc.boolean(),
          determinism: fc.boolean(),
          ...(numeric
            ? { monotonic: fc.constant<Json>([{ axis: first.name, metric: "ttft_p99", direction: "decreasing" }]) }
            : {}),
        },
        { requiredKeys: [] },
      ),
      report: fc.constant<Json>({ pareto: ["ttft_p99", "throughput"] }),
    },
    { requiredKeys: [] },
  );
}

export const planArb: fc.Arbitrary<Generated> = fc.tuple(specArg, fc.boolean()).chain(([spec, variants]) =>
  fc
    .uniqueArray(fc.constantFrom(...FLAG_AXES, ...(spec === "none" ? [] : SPEC_AXES)), {
      minLength: 1,
      maxLength: 2,
      selector: (a) => a.name,
    })
    .chain((axes) =>
      fc
        .tuple(
          fc.record(
            {
              name: fc.constantFrom("fz", "a b"),
              seeds: fc.constantFrom<Json>([1], [1, 2], [7]),
              timeout_s: fc.constantFrom(10, 30),
              allow_failures: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
          tablesArb(axes[0]!, variants),
        )
        .chain(([top, tables]) => {
          const plan: Record<string, Json> = {
            ...top,
            axes: axes.map((a) => ({ name: a.name, ...a.def, values: a.values })),
            ...tables,
          };
          if (variants)
            plan["variants"] = [
              { name: "a", flags: { scheduler: "fcfs" } },
              { name: "b", flags: { scheduler: "sjf" } },
            ];
          return withBase(plan, spec);
        }),
    ),
);

const PARAMETERS: Json[] = [
  { name: "inst", type: "integer", min: 1, max: 3, target: { flag: "num-instances" } },
  { name: "age", type: "continuous", min: 1e-6, max: 1e-3, log: true, target: { flag: "slo-age-weight" } },
  { name: "sched", type: "categorical", values: ["fcfs", "sjf"], target: { flag: "scheduler" } },
  {
    name: "prio",
    type: "categorical",
    target: "variant",
    values: [
      { name: "a", flags: { "priority-policy": "constant" } },
      { name: "b", flags: { "priority-policy": "slo-class", "preemption-policy": "slo-aware" } },
    ],
  },
  { name: "wq", type: "continuous", min: 0.1, max: 5, target: { scorer: "queue-depth" } },
];

export const spaceArb: fc.Arbitrary<Generated> = fc
  .tuple(
    fc.record(
      {
        name: fc.constantFrom("fz", "opt"),
        seed: fc.constantFrom(1, 2),
        seeds: fc.constantFrom<Json>([1], [1, 2]),
        budget: fc.integer({ min: 2, max: 3 }),
        initial: fc.constant(2),
        timeout_s: fc.constantFrom(10, 30),
        baseline: fc.constantFrom<Json>({ flags: { scheduler: "fcfs" } }),
        parameters: fc.uniqueArray(fc.constantFrom(...PARAMETERS), { minLength: 1, maxLength: 2 }),
        objective: fc.record(
          {
            metric: fc.constantFrom("ttft_mean", "throughput", "e2e_p99", "completed", "per_slo.critical.ttft_p99"),
            direction: fc.constantFrom("minimize", "maximize"),
          },
          { requiredKeys: ["metric"] },
        ),
      },
      { requiredKeys: ["parameters", "objective"] },
    ),
    fc.constantFrom<Json>([{ metric: "completed", min: 1 }], [{ metric: "throughput", min: "0.9 * baseline" }]),
    specArg,
  )
  .chain(([top, constraints, spec]) => {
    const space: Record<string, Json> = { ...top };
    if (space["baseline"] !== undefined) space["constraints"] = constraints;
    // Scorer weights need weighted routing.
    const weighted = top.parameters.some((p) => (p as { name: string }).name === "wq");
    return withBase(space, spec).map((g) => {
      if (weighted) (g.value as { base: { flags: Record<string, Json> } }).base.flags["routing-policy"] = "weighted";
      return g;
    });
  });

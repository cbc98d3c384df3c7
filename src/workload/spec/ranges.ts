// Value checks beyond BLIS's validation (docs/behavior.md#w23): values that cannot describe a
// workload (negative means, min > max, weights outside their range, unknown enum strings, negative
// counts) are rejected with the key's path, so the message can point at the line. They run after
// BLIS's checks, so a file that BLIS rejects gets BLIS's message.

import { fmtF } from "../util/format.js";
import {
  VALID_DIST_TYPES,
  type ArrivalSpec,
  type ClientSpec,
  type DistSpec,
  type MultimodalSpec,
  type ReasoningSpec,
  type WorkloadSpec,
} from "./types.js";

/** Reports a failure at a spec path; never returns. */
export type FailFn = (message: string, path: string) => never;

interface ParamRule {
  name: string;
  ok: (v: number) => boolean;
  need: string;
}

const atLeast0 = (name: string): ParamRule => ({ name, ok: (v) => v >= 0, need: ">= 0" });
const above0 = (name: string): ParamRule => ({ name, ok: (v) => v > 0, need: "> 0" });

/** Per-type parameter ranges; a missing parameter is left to the sampler builder's message. */
const PARAM_RULES: Readonly<Record<string, readonly ParamRule[]>> = {
  gaussian: [atLeast0("mean"), atLeast0("std_dev"), atLeast0("min"), atLeast0("max")],
  exponential: [above0("mean")],
  pareto_lognormal: [
    above0("alpha"),
    above0("xm"),
    atLeast0("sigma"),
    { name: "mix_weight", ok: (v) => v >= 0 && v <= 1, need: "in [0, 1]" },
  ],
  constant: [atLeast0("value")],
};

const INT_KEY = /^[+-]?\d+$/;
const VALID_CONTEXT_GROWTH = ["", "accumulate"];
const MULTIMODAL_KINDS = ["image", "audio", "video"] as const;

function checkEmpirical(label: string, d: DistSpec, path: string, fail: FailFn): void {
  const keys = Object.keys(d.params).sort();
  for (const key of keys) {
    const w = d.params[key]!;
    if (w < 0) fail(`${label}.params.${key}: weight must be >= 0, got ${fmtF(w)}`, `${path}.params.${key}`);
    // Non-integer keys keep the sampler builder's message (docs/behavior.md#w22).
    if (INT_KEY.test(key) && BigInt(key) < 0n)
      fail(`${label}.params.${key}: token count must be >= 0`, `${path}.params.${key}`);
  }
  if (keys.length > 0 && !keys.some((k) => d.params[k]! > 0)) {
    fail(`${label}: empirical distribution needs at least one weight > 0`, `${path}.params`);
  }
}

/** Ranges of a distribution whose type is known and whose parameters are finite. */
function checkDistRanges(label: string, d: DistSpec, path: string, fail: FailFn): void {
  if (d.type === "empirical") {
    checkEmpirical(label, d, path, fail);
    return;
  }
  for (const rule of PARAM_RULES[d.type] ?? []) {
    const v = d.params[rule.name];
    if (v !== undefined && !rule.ok(v))
      fail(`${label}.params.${rule.name} must be ${rule.need}, got ${fmtF(v)}`, `${path}.params.${rule.name}`);
  }
  const min = d.params["min"];
  const max = d.params["max"];
  if (d.type === "gaussian" && min !== undefined && max !== undefined && min > max) {
    fail(`${label}.params.min must be <= max, got min ${fmtF(min)} > max ${fmtF(max)}`, `${path}.params.min`);
  }
}

/** A distribution BLIS never validates (multimodal, reason ratio): type "" means unused. */
/** A known distribution type with finite parameters (BLIS's own check of a length distribution). */
export function checkDistShape(label: string, d: DistSpec, path: string, fail: FailFn): void {
  if (!(VALID_DIST_TYPES as readonly string[]).includes(d.type)) {
    fail(
      `${label}: unknown distribution type "${d.type}"; valid: gaussian, exponential, pareto_lognormal, empirical, constant`,
      `${path}.type`,
    );
  }
  // Sorted so that the reported parameter does not depend on key order.
  for (const name of Object.keys(d.params).sort()) {
    const v = d.params[name]!;
    if (!Number.isFinite(v))
      fail(`${label}.params.${name} must be a finite number, got ${fmtF(v)}`, `${path}.params.${name}`);
  }
}

function checkOptionalDist(label: string, d: DistSpec, path: string, fail: FailFn): void {
  if (d.type === "") return;
  checkDistShape(label, d, path, fail);
  checkDistRanges(label, d, path, fail);
}

/** The client cv rules (BLIS's 5d/5e), applied to cohorts too (docs/behavior.md#w10). */
export function checkCv(label: string, arrival: ArrivalSpec, path: string, fail: FailFn): void {
  const cv = arrival.cv;
  if (cv === undefined) return;
  if (arrival.process === "weibull" && (cv < 0.01 || cv > 10.4))
    fail(`${label}: weibull CV must be in [0.01, 10.4], got ${fmtF(cv)}`, `${path}.cv`);
  if (!Number.isFinite(cv)) fail(`${label}.cv must be a finite number, got ${fmtF(cv)}`, `${path}.cv`);
  if (cv <= 0) fail(`${label}.cv must be positive, got ${fmtF(cv)}`, `${path}.cv`);
}

function checkLifecycle(label: string, c: ClientSpec, path: string, fail: FailFn): void {
  if (c.lifecycle === undefined) return;
  const windows = c.lifecycle.windows;
  if (windows.length === 0)
    fail(`${label}.lifecycle: at least one window required (without one the client never sends)`, `${path}.lifecycle`);
  windows.forEach((w, j) => {
    const wl = `${label}.lifecycle.windows[${j}]`;
    const wp = `${path}.lifecycle.windows[${j}]`;
    if (w.start_us < 0) fail(`${wl}.start_us must be >= 0, got ${w.start_us}`, `${wp}.start_us`);
    if (w.end_us <= w.start_us) fail(`${wl}.end_us must be > start_us ${w.start_us}, got ${w.end_us}`, `${wp}.end_us`);
  });
}

function checkMultimodal(label: string, mm: MultimodalSpec, path: string, fail: FailFn): void {
  checkOptionalDist(
    `${label}.multimodal.text_distribution`,
    mm.text_distribution,
    `${path}.multimodal.text_distribution`,
    fail,
  );
  for (const kind of MULTIMODAL_KINDS) {
    const item = `${kind}_distribution` as const;
    const count = `${kind}_count_distribution` as const;
    checkOptionalDist(`${label}.multimodal.${item}`, mm[item], `${path}.multimodal.${item}`, fail);
    checkOptionalDist(`${label}.multimodal.${count}`, mm[count], `${path}.multimodal.${count}`, fail);
    // One without the other is silently unused by the generator.
    if ((mm[item].type === "") !== (mm[count].type === "")) {
      const [given, missing] = mm[item].type === "" ? [count, item] : [item, count];
      fail(`${label}.multimodal: ${given} needs ${missing} too`, `${path}.multimodal.${given}`);
    }
  }
}

function checkReasoning(label: string, r: ReasoningSpec, path: string, fail: FailFn): void {
  const rr = `${path}.reasoning.reason_ratio_distribution`;
  checkOptionalDist(`${label}.reasoning.reason_ratio_distribution`, r.reason_ratio_distribution, rr, fail);
  const mt = r.multi_turn;
  if (mt === undefined) return;
  const ml = `${label}.reasoning.multi_turn`;
  const mp = `${path}.reasoning.multi_turn`;
  if (mt.max_rounds <= 0) fail(`${ml}.max_rounds must be > 0, got ${mt.max_rounds}`, `${mp}.max_rounds`);
  if (mt.think_time_us < 0) fail(`${ml}.think_time_us must be >= 0, got ${mt.think_time_us}`, `${mp}.think_time_us`);
  if (!VALID_CONTEXT_GROWTH.includes(mt.context_growth)) {
    fail(`${ml}: unknown context_growth "${mt.context_growth}"; valid: accumulate, or empty`, `${mp}.context_growth`);
  }
}

function checkClient(c: ClientSpec, i: number, fail: FailFn): void {
  const label = `client[${i}]`;
  const path = `clients[${i}]`;
  checkDistRanges(`${label}.input_distribution`, c.input_distribution, `${path}.input_distribution`, fail);
  checkDistRanges(`${label}.output_distribution`, c.output_distribution, `${path}.output_distribution`, fail);
  if (c.prefix_length > 0 && c.prefix_group === "") {
    fail(`${label}: prefix_length ${c.prefix_length} has no effect without prefix_group`, `${path}.prefix_length`);
  }
  if (c.network !== undefined) {
    for (const key of ["rtt_ms", "bandwidth_mbps"] as const) {
      const v = c.network[key];
      if (!(v >= 0 && v < Infinity))
        fail(`${label}.network.${key} must be a finite number >= 0, got ${fmtF(v)}`, `${path}.network.${key}`);
    }
  }
  checkLifecycle(label, c, path, fail);
  if (c.multimodal !== undefined) checkMultimodal(label, c.multimodal, path, fail);
  if (c.reasoning !== undefined) checkReasoning(label, c.reasoning, path, fail);
}

function checkServeGen(spec: WorkloadSpec, fail: FailFn): void {
  const sg = spec.servegen_data;
  if (sg === undefined) return;
  if (sg.span_start < 0)
    fail(`servegen_data.span_start must be >= 0 (0 = unset), got ${sg.span_start}`, "servegen_data.span_start");
  if (sg.span_end < 0)
    fail(`servegen_data.span_end must be >= 0 (0 = unset), got ${sg.span_end}`, "servegen_data.span_end");
  if (sg.span_start > 0 && sg.span_end > 0 && sg.span_end <= sg.span_start) {
    fail(`servegen_data.span_end must be > span_start ${sg.span_start}, got ${sg.span_end}`, "servegen_data.span_end");
  }
}

/** Our checks, in file order: version, clients, cohorts, servegen_data. */
export function checkRanges(spec: WorkloadSpec, fail: FailFn): void {
  // "", "1" and "1.0" were upgraded to "2" on loading (docs/behavior.md#w2).
  if (spec.version !== "2")
    fail(`unknown version "${spec.version}"; valid: "2", or "1", "1.0" or absent for v1 files`, "version");
  spec.clients.forEach((c, i) => checkClient(c, i, fail));
  spec.cohorts.forEach((c, i) => {
    const label = `cohort[${i}]`;
    const path = `cohorts[${i}]`;
    checkCv(label, c.arrival, `${path}.arrival`, fail);
    checkDistRanges(`${label}.input_distribution`, c.input_distribution, `${path}.input_distribution`, fail);
    checkDistRanges(`${label}.output_distribution`, c.output_distribution, `${path}.output_distribution`, fail);
  });
  checkServeGen(spec, fail);
}

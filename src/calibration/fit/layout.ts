// What θ means for each fittable latency model (docs/calibration.md "Fit"). θ always has
// NUM_PARAMS entries: three α, then one coefficient per step-time feature slot. Blackbox uses the
// first three slots (β0, β1, β2) and leaves the others at zero.

import type { Coefficients } from "../../latency/backends/backend.js";
import type { RunInput } from "../../config/runOptions.js";
import { UserError } from "../../util/errors.js";
import {
  A0,
  A1,
  A2,
  coefficientsFromTheta,
  DECODE_CONTEXT,
  DEFAULT_FREE,
  NUM_PARAMS,
  PARAM_NAMES,
  thetaFromCoefficients,
} from "./params.js";
import { KERNEL_OVERHEADS } from "../../latency/kernels/kernelModel.js";

export interface ParamLayout {
  /** The `--latency-model` whose coefficients θ holds. */
  readonly model: "trained-physics" | "blackbox" | "kernels";
  /** Parameter names, by θ index (the slots after them are unused). */
  readonly names: readonly string[];
  readonly defaultFree: readonly string[];
  toTheta(c: Coefficients): Float64Array;
  fromTheta(t: ArrayLike<number>): Coefficients;
  /**
   * The α parts of one request's TTFT and E2E forms: prompt length L, output length O and its
   * ITL entries (docs/behavior.md "Step time and request timelines").
   */
  alphaParts(L: number, O: number, itlEntries: number, t: Float64Array, e: Float64Array): void;
}

/** Current timeline: queueing α0, α1 once per request with output, α2 per token. */
export const TRAINED_PHYSICS_LAYOUT: ParamLayout = {
  model: "trained-physics",
  names: PARAM_NAMES,
  defaultFree: DEFAULT_FREE,
  toTheta: thetaFromCoefficients,
  fromTheta: coefficientsFromTheta,
  alphaParts(_L, O, itlEntries, t, e) {
    t[A0] = 1;
    t[A2] = 1;
    e[A0] = 1;
    e[A1] = O > 0 ? 1 : 0;
    e[A2] = 1 + itlEntries;
  },
};

const BLACKBOX_NAMES = ["alpha0", "alpha1", "alpha2", "beta0", "beta1", "beta2"] as const;

/**
 * Seed timeline: queueing trunc(α0 + α1·L), α2 in TTFT and in every ITL entry, the duplicated
 * final entry included (docs/behavior.md#q3).
 */
export const BLACKBOX_LAYOUT: ParamLayout = {
  model: "blackbox",
  names: BLACKBOX_NAMES,
  defaultFree: BLACKBOX_NAMES,
  toTheta(c) {
    const t = new Float64Array(NUM_PARAMS);
    for (let i = 0; i < 3; i++) {
      t[i] = c.alpha[i] ?? 0;
      t[3 + i] = c.beta[i] ?? 0;
    }
    return t;
  },
  fromTheta: (t) => ({ alpha: [t[0]!, t[1]!, t[2]!], beta: [t[3]!, t[4]!, t[5]!] }),
  alphaParts(L, _O, itlEntries, t, e) {
    t[A0] = 1;
    t[A1] = L;
    t[A2] = 1;
    e[A0] = 1;
    e[A1] = L;
    e[A2] = 1 + itlEntries;
  },
};

/**
 * Kernels: θ3 multiplies the measured kernel time and stays 1 (the tables are facts, docs/latency.md
 * "Kernels"); θ4..θ7 are the overhead terms. α as in trained-physics (the current timeline).
 */
export const KERNELS_LAYOUT: ParamLayout = {
  model: "kernels",
  names: ["alpha0", "alpha1", "alpha2", "kernel_scale", ...KERNEL_OVERHEADS],
  defaultFree: ["alpha0", "alpha1", "alpha2", ...KERNEL_OVERHEADS],
  toTheta(c) {
    const t = new Float64Array(NUM_PARAMS);
    for (let i = 0; i < 3; i++) t[i] = c.alpha[i] ?? 0;
    t[3] = 1;
    for (let i = 0; i < KERNEL_OVERHEADS.length; i++) t[4 + i] = c.beta[i] ?? 0;
    return t;
  },
  fromTheta: (t) => ({ alpha: [t[0]!, t[1]!, t[2]!], beta: KERNEL_OVERHEADS.map((_, i) => t[4 + i]!) }),
  alphaParts: TRAINED_PHYSICS_LAYOUT.alphaParts,
};

/** The layout of an experiment: the one of the latency model its run asks for (trained-physics by default). */
export function layoutOf(run: RunInput): ParamLayout {
  if (run.latencyModel === "blackbox") return BLACKBOX_LAYOUT;
  return run.latencyModel === "kernels" ? KERNELS_LAYOUT : TRAINED_PHYSICS_LAYOUT;
}

/** The one layout shared by all experiments of a fit. */
export function commonLayout(runs: readonly RunInput[]): ParamLayout {
  const layouts = new Set(runs.map(layoutOf));
  if (layouts.size > 1) {
    throw new UserError(
      `fit: the experiments use different latency models (${[...layouts].map((l) => l.model).join(" and ")}); fit them separately`,
    );
  }
  return [...layouts][0] ?? TRAINED_PHYSICS_LAYOUT;
}

export function layoutParamIndex(layout: ParamLayout, name: string, flag: string): number {
  const i = layout.names.indexOf(name);
  if (i < 0) throw new UserError(`${flag}: unknown parameter "${name}" (valid: ${layout.names.join(", ")})`);
  return i;
}

/**
 * The parameters a fit frees: `--params` (default: the layout's set) and, for trained-physics,
 * the extra terms of `--terms`; blackbox has none.
 */
export function freeParams(layout: ParamLayout, params: string | undefined, terms: string | undefined): number[] {
  const blackbox = layout !== TRAINED_PHYSICS_LAYOUT;
  if (blackbox && terms !== undefined && terms.trim() !== "")
    throw new UserError(`--terms: ${layout.model} has no extra terms`);
  const names = params === undefined ? layout.defaultFree : listOf(params);
  const free = new Set(names.map((n) => layoutParamIndex(layout, n, "--params")));
  if (layout === KERNELS_LAYOUT && free.has(3)) {
    throw new UserError(
      "--params: kernel_scale is not fitted: the kernel tables are measured facts; fit the overhead terms",
    );
  }
  if (free.size === 0) throw new UserError("--params: empty list");
  if (!blackbox) {
    for (const t of listOf(terms ?? "")) {
      if (t !== "decode_context") throw new UserError(`--terms: unknown term "${t}" (valid: decode_context)`);
      free.add(DECODE_CONTEXT);
    }
  }
  return [...free].sort((a, b) => a - b);
}

const listOf = (text: string): string[] =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** Bundled experiments carry trained-physics deployments: a blackbox fit takes traces and CSVs. */
export function checkBlackboxInputs(xs: readonly { id: string; run: RunInput }[], flag: string): void {
  const other = xs.find((x) => layoutOf(x.run) !== BLACKBOX_LAYOUT);
  if (other !== undefined) {
    throw new UserError(
      `${flag} ${other.id}: --latency-model blackbox fits trace v2 and CSV inputs only (their deployment comes from the run flags)`,
    );
  }
}

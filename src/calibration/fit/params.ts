// The fitted parameter vector (docs/calibration.md "Fit"): three α, the eleven β of the bundled
// form, then the extra terms. Index j ≥ 3 multiplies step-time feature j − 3.

import type { Coefficients } from "../../latency/backends/backend.js";
import { FEATURE_NAMES, NUM_FEATURES } from "../../latency/trainedPhysics.js";
import { UserError } from "../../util/errors.js";

export const PARAM_NAMES = ["alpha0", "alpha1", "alpha2", ...FEATURE_NAMES] as const;
export type ParamName = (typeof PARAM_NAMES)[number];
export const NUM_PARAMS = 3 + NUM_FEATURES;
export const A0 = 0;
export const A1 = 1;
export const A2 = 2;
/** Index of a β (0-based, bundled order) or extra term in the parameter vector. */
export const beta = (i: number): number => 3 + i;
export const DECODE_CONTEXT = beta(11);
const BETA4 = beta(3);
const BETA_EP = beta(10);

/** The spec's default free set: α0-α2, β1a, β2b, β3-β7 (β8 and β_EP only when the data needs them). */
export const DEFAULT_FREE: readonly ParamName[] = [
  "alpha0",
  "alpha1",
  "alpha2",
  "beta1a",
  "beta2b",
  "beta3",
  "beta4",
  "beta5",
  "beta6",
  "beta7",
];

export function paramIndex(name: string, flag: string): number {
  const i = (PARAM_NAMES as readonly string[]).indexOf(name);
  if (i < 0) throw new UserError(`${flag}: unknown parameter "${name}" (valid: ${PARAM_NAMES.join(", ")})`);
  return i;
}

export function thetaFromCoefficients(c: Coefficients): Float64Array {
  const t = new Float64Array(NUM_PARAMS);
  for (let i = 0; i < 3; i++) t[i] = c.alpha[i] ?? 0;
  for (let i = 0; i < 11; i++) t[beta(i)] = c.beta[i] ?? 0;
  // Fewer than 11 betas: β_EP follows β4 (docs/latency.md "Trained physics").
  if (c.beta.length < 11) t[BETA_EP] = t[BETA4]!;
  t[DECODE_CONTEXT] = c.extra?.decode_context ?? 0;
  return t;
}

export function coefficientsFromTheta(t: ArrayLike<number>): Coefficients {
  const alpha = [t[0]!, t[1]!, t[2]!];
  const b: number[] = [];
  for (let i = 0; i < 11; i++) b.push(t[beta(i)]!);
  const c: Coefficients = { alpha, beta: b };
  if (t[DECODE_CONTEXT]! > 0) c.extra = { decode_context: t[DECODE_CONTEXT]! };
  return c;
}

/** Names and values for reports. */
export function describeTheta(
  t: ArrayLike<number>,
  free: ReadonlySet<number>,
): { name: string; value: number; free: boolean }[] {
  return PARAM_NAMES.map((name, i) => ({ name, value: t[i]!, free: free.has(i) }));
}

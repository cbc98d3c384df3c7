// Log-gamma and gamma via the Lanczos approximation (g = 7, n = 9; ~15 significant digits),
// used for the Weibull shape/scale from a target coefficient of variation.

const G = 7;
const COEF = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
] as const;
const HALF_LN_2PI = 0.5 * Math.log(2 * Math.PI);

/** ln|Γ(x)|. */
export function lnGamma(x: number): number {
  if (x < 0.5) {
    // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
    return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  }
  const z = x - 1;
  let a = COEF[0];
  const t = z + G + 0.5;
  for (let i = 1; i < COEF.length; i++) a += COEF[i]! / (z + i);
  return HALF_LN_2PI + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Γ(x) for real x (sign handled through reflection; overflow → Infinity). */
export function gammaFn(x: number): number {
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gammaFn(1 - x));
  if (x > 171.7) return Infinity;
  return Math.exp(lnGamma(x));
}

// Number formatting that mirrors the reference's Go verbs, so messages match byte for byte.

/** Go `%f`: six decimals; NaN, +Inf, -Inf spelled as Go does. */
export function fmtF(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (Math.abs(v) < 1e21) return v.toFixed(6);
  // toFixed switches to exponent form at 1e21; such values are integers, print all digits.
  return BigInt(v).toString() + ".000000";
}

/** Go `%v` for a float64 (strconv 'g', shortest: exponent form when exp < -4 or exp >= 6, so 1e6 → "1e+06"). */
export function fmtV(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  // Decimal exponent of the shortest representation (log10 can be off by one near powers of 10).
  const exp = Number(v.toExponential().split("e")[1]);
  if (exp < -4 || exp >= 6) {
    // JS gives "1e-7" / "1.5e+22"; Go pads the exponent to two digits.
    const [mant, e] = v.toExponential().split("e") as [string, string];
    const sign = e.startsWith("-") ? "-" : "+";
    const digits = e.replace(/^[+-]/, "");
    return `${mant}e${sign}${digits.length < 2 ? "0" + digits : digits}`;
  }
  return String(v);
}

/** Shortest decimal that reads back to `v`, never in exponent form (trace CSV cells). */
export function fmtShortestDecimal(v: number): string {
  if (!Number.isFinite(v)) return fmtV(v);
  const s = String(v);
  if (!s.includes("e")) return s;
  const [mant, expText] = s.split("e") as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  const pointPos =
    (mant.replace("-", "").indexOf(".") === -1 ? mant.replace("-", "").length : mant.replace("-", "").indexOf(".")) +
    exp;
  let out: string;
  if (pointPos <= 0) out = "0." + "0".repeat(-pointPos) + digits;
  else if (pointPos >= digits.length) out = digits + "0".repeat(pointPos - digits.length);
  else out = digits.slice(0, pointPos) + "." + digits.slice(pointPos);
  return (neg ? "-" : "") + out;
}

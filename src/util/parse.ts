// Scalar parsing with Go's strconv acceptance rules, where the command line and input files
// (CSV cells, dict texts) depend on them, and Go's integer conversions.

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Go ParseFloat: decimal, exponent, and the words inf/infinity/nan (any case, optional sign). */
export function parseGoFloat(text: string): number | null {
  if (DECIMAL.test(text)) return Number(text);
  const t = text.toLowerCase();
  if (t === "inf" || t === "+inf" || t === "infinity" || t === "+infinity") return Infinity;
  if (t === "-inf" || t === "-infinity") return -Infinity;
  if (t === "nan" || t === "+nan" || t === "-nan") return NaN;
  return null;
}

/** Go ParseInt base 10 for 64-bit values; returns a bigint or null. */
export function parseGoInt(text: string): bigint | null {
  if (!/^[+-]?\d+$/.test(text)) return null;
  const v = BigInt(text);
  if (v > 9223372036854775807n || v < -9223372036854775808n) return null;
  return v;
}

/** Go ParseInt base 10, 64-bit, as a number, or Go's error detail for messages that quote it. */
export function parseGoIntDetailed(s: string): { ok: true; value: number } | { ok: false; detail: string } {
  const v = parseGoInt(s);
  if (v !== null) return { ok: true, value: Number(v) };
  const why = /^[+-]?\d+$/.test(s) ? "value out of range" : "invalid syntax";
  return { ok: false, detail: `strconv.ParseInt: parsing ${JSON.stringify(s)}: ${why}` };
}

/** Comma-separated list of floats (e.g. --alpha-coeffs). */
export function parseFloatList(text: string): number[] | null {
  if (text.trim() === "") return [];
  const out: number[] = [];
  for (const piece of text.split(",")) {
    const v = parseGoFloat(piece.trim());
    if (v === null) return null;
    out.push(v);
  }
  return out;
}

/** Go ParseBool. */
export function parseGoBool(s: string): boolean | null {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
    default:
      return null;
  }
}

/** Go's int64(x) for a float that must be an integer count: truncation; out of range → MinInt64 (amd64). */
export function goInt(x: number): number {
  if (Number.isFinite(x) && Math.abs(x) < 9223372036854775808) return Math.trunc(x) + 0;
  return -9223372036854775808;
}

/** math.Round: half away from zero. */
export function roundHalfAway(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

// Strict scalar parsers with the acceptance rules of Go's strconv (CSV cells, dict texts).

const FLOAT_RE = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/;
const SPECIAL_RE = /^[+-]?(?:inf|infinity|nan)$/i;

/** strconv.ParseFloat(s, 64) for decimal input; null when the text is not a number. */
export function parseGoFloat(s: string): number | null {
  if (FLOAT_RE.test(s)) return Number(s);
  if (SPECIAL_RE.test(s)) {
    const lower = s.toLowerCase();
    if (lower.endsWith("nan")) return NaN;
    return lower.startsWith("-") ? -Infinity : Infinity;
  }
  return null;
}

/** strconv.ParseInt(s, 10, 64) result: the value or the Go error detail. */
export function parseGoInt(s: string): { ok: true; value: number } | { ok: false; detail: string } {
  if (!/^[+-]?\d+$/.test(s)) return { ok: false, detail: `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax` };
  const big = BigInt(s);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    return { ok: false, detail: `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range` };
  }
  return { ok: true, value: Number(big) };
}

/** strconv.ParseBool. */
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

// Number parsing with Go's strconv semantics where the CLI contract depends on them.

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

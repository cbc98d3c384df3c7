// Output formatting compatible with BLIS (Go's encoding/json and fmt).

/**
 * Fixed-decimal formatting that rounds the exact binary value half-to-even, as Go's %.Nf does.
 * Number.prototype.toFixed rounds exact ties upward, so ties are detected and corrected.
 */
export function formatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : x < 0 ? "-Inf" : "NaN";
  const s = x.toFixed(digits);
  if (isExactTie(x, digits)) {
    // toFixed rounded away from zero; Go keeps the even neighbour.
    const scaled = BigInt(s.replace("-", "").replace(".", ""));
    if (scaled % 2n === 1n) {
      const down = scaled - 1n;
      return (x < 0 ? "-" : "") + insertPoint(down.toString(), digits);
    }
  }
  return s;
}

function insertPoint(digitsStr: string, digits: number): string {
  if (digits === 0) return digitsStr;
  const padded = digitsStr.padStart(digits + 1, "0");
  return padded.slice(0, padded.length - digits) + "." + padded.slice(padded.length - digits);
}

/** True when |x| · 10^digits has a fractional part of exactly one half. */
function isExactTie(x: number, digits: number): boolean {
  const ax = Math.abs(x);
  if (ax === 0 || Number.isInteger(ax)) return false;
  // Decompose ax = m / 2^k exactly.
  let m = ax;
  let k = 0n;
  while (!Number.isInteger(m)) {
    m *= 2;
    k++;
    if (k > 1100n) return false;
  }
  const num = BigInt(m) * 10n ** BigInt(digits) * 2n;
  const den = 1n << k;
  if (num % den !== 0n) return false;
  return (num / den) % 2n === 1n;
}

/** JSON text as Go's json.MarshalIndent(v, "", "  ") writes it. */
export function goJson(v: unknown): string {
  return JSON.stringify(v, null, 2)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

// Number text on axes and in tooltips.

function trim(s: string): string {
  return s.indexOf(".") >= 0 && s.indexOf("e") < 0 ? s.replace(/\.?0+$/, "") : s;
}

/** 3 significant digits, k/M/G suffixes for large values; non-numbers as they are. */
export function fmt(v: unknown): string {
  if (v === null || v === undefined || typeof v !== "number") return String(v);
  if (!isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1e9) return trim((v / 1e9).toPrecision(3)) + "G";
  if (a >= 1e6) return trim((v / 1e6).toPrecision(3)) + "M";
  if (a >= 1e4) return trim((v / 1e3).toPrecision(3)) + "k";
  if (Number.isInteger(v)) return String(v);
  if (a >= 100) return v.toFixed(0);
  if (a === 0) return "0";
  return trim(v.toPrecision(3));
}

/** A tick of a logarithmic axis (m × 10^k): 500, 2k, 1M, and below 1 as the decimal it is (0.05, 2e-7). */
export function logTickText(v: number): string {
  return v >= 1 ? fmt(v) : String(v);
}

/** A fraction of 1 as a percentage (0.25 → "25%"). */
export function pct(v: number): string {
  const p = v * 100;
  return (Math.abs(p - Math.round(p)) < 1e-9 ? String(Math.round(p)) : trim(p.toPrecision(3))) + "%";
}

export function withUnit(text: string, unit: string | undefined): string {
  return unit ? text + " " + unit : text;
}

/** A tooltip value: "n/a" for a gap, else a percentage or a number with its unit. */
export function valueText(
  v: number | null | undefined,
  percent: boolean | undefined,
  unit: string | undefined,
): string {
  if (v === null || v === undefined) return "n/a";
  return percent ? pct(v) : withUnit(fmt(v), unit);
}

// Number formatting of `blis optimize`'s progress lines, stdout report and result files.

/** A metric value: integers as they are, others rounded by magnitude (4 significant digits below 1). */
export function fmtValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(1);
  if (a >= 1) return v.toFixed(3);
  return v.toPrecision(4);
}

/** The change from `ref` to `v` in percent (`+3.5%`, `-70.3%`); "" when `ref` is 0. */
export function pct(v: number, ref: number): string {
  if (ref === 0) return "";
  const p = ((v - ref) / Math.abs(ref)) * 100;
  return `${p >= 0 ? "+" : ""}${p.toFixed(1)}%`;
}

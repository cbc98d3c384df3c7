/** Fixed-width text/markdown number format: integers as is, else 1–4 decimals by magnitude. */
export function fmtNum(v: number | null | undefined): string {
  if (v === null || v === undefined) return "-";
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(1);
  if (a >= 1) return v.toFixed(3);
  return v.toFixed(4);
}

/** Decimal format even for integral values (columns that are not all integers). */
export function fmtDec(v: number | null | undefined): string {
  if (v === null || v === undefined) return "-";
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(1);
  if (a >= 1) return v.toFixed(3);
  return v.toFixed(4);
}

/** A formatter for one column: integers when every value is one, else decimals throughout. */
export function columnFormat(values: readonly (number | null | undefined)[]): (v: number | null | undefined) => string {
  const ints = values.every((v) => v === null || v === undefined || (Number.isInteger(v) && Math.abs(v) < 1e15));
  return ints ? fmtNum : fmtDec;
}

/** Full-precision value for CSV (shortest round-trip form), "" when missing. */
export function rawNum(v: number | null | undefined): string {
  return v === null || v === undefined ? "" : String(v);
}

// Goodput SLO targets per class (docs/gateway.md "Goodput"): the --slo-ttft/--slo-itl/--slo-e2e
// flags, a trace header's and a workload spec's goodput_slo_targets, merged with flags first.
import { UserError } from "../util/errors.js";

/** Per-class targets in milliseconds; 0 = that dimension is not gated. */
export interface SloTargets {
  ttft_ms: number;
  itl_ms: number;
  e2e_ms: number;
}

/** Parsed --slo-* flags: class → milliseconds, per dimension. */
export interface SloFlagTargets {
  ttft?: Record<string, number> | undefined;
  itl?: Record<string, number> | undefined;
  e2e?: Record<string, number> | undefined;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60000,
  h: 3600000,
};

/** A Go-style duration ("250ms", "1.5s", "1m30s") in milliseconds; null when malformed. */
export function parseDurationMs(text: string): number | null {
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return null;
  let total = 0;
  const re = /^(\d+\.?\d*|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/;
  while (s !== "") {
    const m = re.exec(s);
    if (m === null) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    s = s.slice(m[0].length);
  }
  return sign * total;
}

/** Parses one --slo-* flag (`critical=100ms,standard=500ms`); "" = not given. */
export function parseSloFlag(flag: string, text: string): Record<string, number> | undefined {
  const s = text.trim();
  if (s === "") return undefined;
  const out: Record<string, number> = {};
  for (const raw of s.split(",")) {
    const pair = raw.trim();
    if (pair === "") throw new UserError(`${flag}: empty pair in ${JSON.stringify(s)} (expected class=duration)`);
    const eq = pair.indexOf("=");
    if (eq < 0) throw new UserError(`${flag}: invalid pair ${JSON.stringify(pair)} (expected class=duration)`);
    const key = pair.slice(0, eq).trim();
    if (key === "") throw new UserError(`${flag}: empty class in pair ${JSON.stringify(pair)}`);
    if (Object.prototype.hasOwnProperty.call(out, key)) throw new UserError(`${flag}: class "${key}" is given twice`);
    const ms = parseDurationMs(pair.slice(eq + 1).trim());
    if (ms === null)
      throw new UserError(`${flag}: unparseable duration in pair ${JSON.stringify(pair)} (e.g. 250ms, 1.5s)`);
    if (!(ms > 0) || !Number.isFinite(ms))
      throw new UserError(`${flag}: non-positive duration in pair ${JSON.stringify(pair)}`);
    out[key] = ms;
  }
  return out;
}

/**
 * Per dimension, a flag value overrides the header's, which overrides the workload spec's; a header value of 0 leaves
 * the dimension
 * ungated. Classes with no gated dimension are dropped; undefined when nothing is gated.
 */
export function mergeSloTargets(
  flags: SloFlagTargets,
  header: Record<string, SloTargets> | undefined,
  spec?: Record<string, SloTargets>,
): Record<string, SloTargets> | undefined {
  const classes = new Set<string>([
    ...Object.keys(spec ?? {}),
    ...Object.keys(header ?? {}),
    ...Object.keys(flags.ttft ?? {}),
    ...Object.keys(flags.itl ?? {}),
    ...Object.keys(flags.e2e ?? {}),
  ]);
  const out: Record<string, SloTargets> = {};
  for (const cls of [...classes].sort()) {
    const h = header?.[cls];
    const w = spec?.[cls];
    // Precedence per dimension: flag, then a positive header value, then the workload spec.
    const pick = (flag: number | undefined, k: keyof SloTargets): number =>
      flag ?? (h !== undefined && h[k] > 0 ? h[k] : w !== undefined && w[k] > 0 ? w[k] : 0);
    const t: SloTargets = {
      ttft_ms: pick(flags.ttft?.[cls], "ttft_ms"),
      itl_ms: pick(flags.itl?.[cls], "itl_ms"),
      e2e_ms: pick(flags.e2e?.[cls], "e2e_ms"),
    };
    if (t.ttft_ms > 0 || t.itl_ms > 0 || t.e2e_ms > 0) out[cls] = t;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

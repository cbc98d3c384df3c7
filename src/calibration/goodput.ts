// Goodput comparison of `blis calibrate` (docs/calibration.md "Calibrate", "Goodput"): per SLO
// class, the fraction of requests meeting every configured target, measured vs simulated.
// Targets come from --slo-ttft/--slo-itl/--slo-e2e (`class=duration,...`) over the trace
// header's goodput_slo_targets.

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

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

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
  const re = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
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
    const ms = parseDurationMs(pair.slice(eq + 1).trim());
    if (ms === null) throw new UserError(`${flag}: unparseable duration in pair ${JSON.stringify(pair)} (e.g. 250ms, 1.5s)`);
    if (!(ms > 0) || !Number.isFinite(ms)) throw new UserError(`${flag}: non-positive duration in pair ${JSON.stringify(pair)}`);
    out[key] = ms;
  }
  return out;
}

/**
 * Per dimension, a flag value overrides the header's; a header value of 0 leaves the dimension
 * ungated. Classes with no gated dimension are dropped; undefined when nothing is gated.
 */
export function mergeSloTargets(
  flags: SloFlagTargets,
  header: Record<string, SloTargets> | undefined,
): Record<string, SloTargets> | undefined {
  const classes = new Set<string>([
    ...Object.keys(header ?? {}),
    ...Object.keys(flags.ttft ?? {}),
    ...Object.keys(flags.itl ?? {}),
    ...Object.keys(flags.e2e ?? {}),
  ]);
  const out: Record<string, SloTargets> = {};
  for (const cls of [...classes].sort()) {
    const h = header?.[cls];
    const t: SloTargets = {
      ttft_ms: flags.ttft?.[cls] ?? (h !== undefined && h.ttft_ms > 0 ? h.ttft_ms : 0),
      itl_ms: flags.itl?.[cls] ?? (h !== undefined && h.itl_ms > 0 ? h.itl_ms : 0),
      e2e_ms: flags.e2e?.[cls] ?? (h !== undefined && h.e2e_ms > 0 ? h.e2e_ms : 0),
    };
    if (t.ttft_ms > 0 || t.itl_ms > 0 || t.e2e_ms > 0) out[cls] = t;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** One request of the goodput population, all latencies in µs in the client frame. */
export interface GoodputSample {
  /** The pair's SLO class: the result's, else the trace row's ("" counts as "default"). */
  sloClass: string;
  realTtft: number;
  realE2e: number;
  /** Undefined when there is no ITL measurement for the request. */
  realItl: number | undefined;
  simTtft: number;
  simE2e: number;
  simItl: number | undefined;
}

export interface AttainmentByDim {
  ttft?: number;
  itl?: number;
  e2e?: number;
}

export interface GoodputClass {
  /** Requests of the class compared. */
  count: number;
  /** Fraction meeting every gated target. */
  real_slo_attainment: number;
  sim_slo_attainment: number;
  /** Per gated dimension: met / requests with a value for it. */
  real_attainment_by_dim: AttainmentByDim;
  sim_attainment_by_dim: AttainmentByDim;
}

export interface GoodputComparison {
  targets: Record<string, SloTargets>;
  per_class: Record<string, GoodputClass>;
  /** An ITL target is set but some request had no ITL value (it then counts as not met). */
  skipped_itl?: boolean;
}

const DIMS = [
  ["ttft", "ttft_ms"],
  ["itl", "itl_ms"],
  ["e2e", "e2e_ms"],
] as const;

export function compareGoodput(samples: readonly GoodputSample[], targets: Record<string, SloTargets>): GoodputComparison {
  let itlMissing = false;
  const perClass: Record<string, GoodputClass> = {};
  for (const cls of Object.keys(targets).sort()) {
    const t = targets[cls]!;
    const mine = samples.filter((s) => (s.sloClass === "" ? "default" : s.sloClass) === cls);
    const side = (pick: (s: GoodputSample) => { ttft: number; itl: number | undefined; e2e: number }): [number, AttainmentByDim] => {
      let good = 0;
      const met = { ttft: 0, itl: 0, e2e: 0 };
      const seen = { ttft: 0, itl: 0, e2e: 0 };
      for (const s of mine) {
        const v = pick(s);
        let ok = true;
        for (const [dim, key] of DIMS) {
          const limitMs = t[key];
          if (limitMs <= 0) continue;
          const value = v[dim];
          if (value === undefined) {
            itlMissing = true;
            ok = false;
            continue;
          }
          seen[dim]++;
          if (value <= limitMs * 1000) met[dim]++;
          else ok = false;
        }
        if (ok) good++;
      }
      const byDim: AttainmentByDim = {};
      for (const [dim, key] of DIMS) if (t[key] > 0) byDim[dim] = seen[dim] > 0 ? met[dim] / seen[dim] : 0;
      return [mine.length > 0 ? good / mine.length : 0, byDim];
    };
    const [realAtt, realDim] = side((s) => ({ ttft: s.realTtft, itl: s.realItl, e2e: s.realE2e }));
    const [simAtt, simDim] = side((s) => ({ ttft: s.simTtft, itl: s.simItl, e2e: s.simE2e }));
    perClass[cls] = {
      count: mine.length,
      real_slo_attainment: realAtt,
      sim_slo_attainment: simAtt,
      real_attainment_by_dim: realDim,
      sim_attainment_by_dim: simDim,
    };
  }
  const out: GoodputComparison = { targets, per_class: perClass };
  if (itlMissing) out.skipped_itl = true;
  return out;
}

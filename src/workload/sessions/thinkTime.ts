// `--think-time-dist` of closed-loop replay (docs/calibration.md "Closed-loop replay"):
// `lognormal:mu=M,sigma=S[,min=T][,max=T]` (mu and sigma of ln seconds) or `constant:value=T`,
// with T in s, ms or us (bare numbers are ms). Draws are µs.

import type { Rng } from "../../engine/rng.js";
import { UserError } from "../../util/errors.js";

export interface ThinkDist {
  sample(rng: Rng): number;
}

const FLAG = "--think-time-dist";

/** A duration T in µs: suffix s, ms or us; bare numbers are ms. */
function duration(key: string, v: string): number {
  const m = /^([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)(s|ms|us)?$/i.exec(v.trim());
  if (m === null) throw new UserError(`${FLAG}: ${key} must be a duration >= 0 (e.g. 500ms, 2s, 800us), got "${v}"`);
  const x = Number(m[1]);
  const unit = (m[2] ?? "ms").toLowerCase();
  return Math.round(unit === "s" ? x * 1e6 : unit === "ms" ? x * 1e3 : x);
}

function number(key: string, v: string): number {
  const x = Number(v);
  if (v.trim() === "" || !Number.isFinite(x)) throw new UserError(`${FLAG}: ${key} must be a number, got "${v}"`);
  return x;
}

/** Parses the flag's value; one-line errors name the flag and the key. */
export function parseThinkDist(text: string): ThinkDist {
  const colon = text.indexOf(":");
  const kind = colon < 0 ? text : text.slice(0, colon);
  const params = new Map<string, string>();
  for (const part of colon < 0 ? [] : text.slice(colon + 1).split(",")) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? part.trim() : part.slice(0, eq).trim();
    if (eq < 0) throw new UserError(`${FLAG}: expected key=value, got "${part}"`);
    if (params.has(key)) throw new UserError(`${FLAG}: duplicate key "${key}"`);
    params.set(key, part.slice(eq + 1));
  }
  const allow = (keys: string[]): void => {
    for (const k of params.keys())
      if (!keys.includes(k)) throw new UserError(`${FLAG}: unknown key "${k}" for ${kind} (valid: ${keys.join(", ")})`);
  };
  if (kind === "constant") {
    allow(["value"]);
    const v = params.get("value");
    if (v === undefined) throw new UserError(`${FLAG}: constant needs value=T`);
    const us = duration("value", v);
    return { sample: () => us };
  }
  if (kind === "lognormal") {
    allow(["mu", "sigma", "min", "max"]);
    const mu = params.get("mu");
    const sigma = params.get("sigma");
    if (mu === undefined || sigma === undefined) throw new UserError(`${FLAG}: lognormal needs mu=M and sigma=S`);
    const m = number("mu", mu);
    const s = number("sigma", sigma);
    if (!(s > 0)) throw new UserError(`${FLAG}: sigma must be > 0, got ${sigma}`);
    const lo = params.has("min") ? duration("min", params.get("min")!) : 0;
    const hi = params.has("max") ? duration("max", params.get("max")!) : Infinity;
    if (lo > hi) throw new UserError(`${FLAG}: min must not exceed max`);
    return {
      sample: (rng) => {
        const us = Math.round(Math.exp(m + s * rng.normFloat64()) * 1e6);
        return us < lo ? lo : us > hi ? hi : us;
      },
    };
  }
  throw new UserError(`${FLAG}: unknown distribution "${kind}" (valid: lognormal, constant)`);
}

// Checks of a client's rate schedule (docs/behavior.md "Rate schedules"), with the key's path so
// the message can point at the line.

import { fmtV } from "../util/format.js";
import type { FailFn } from "./ranges.js";
import { VALID_RATE_INTERPOLATIONS, type ClientSpec } from "./types.js";

/** Validates `rate_schedule` and `rate_interpolation`; true when the client has a schedule. */
export function checkRateSchedule(label: string, c: ClientSpec, path: string, fail: FailFn): boolean {
  const mode = c.rate_interpolation;
  if (mode !== undefined && !(VALID_RATE_INTERPOLATIONS as readonly string[]).includes(mode)) {
    fail(
      `${label}: unknown rate_interpolation "${mode}"; valid: step, linear, or empty (step)`,
      `${path}.rate_interpolation`,
    );
  }
  const points = c.rate_schedule;
  if (points === undefined) {
    if (mode !== undefined && mode !== "")
      fail(`${label}: rate_interpolation has no effect without rate_schedule`, `${path}.rate_interpolation`);
    return false;
  }
  if ((c.concurrency ?? 0) > 0)
    fail(`${label}: rate_schedule and concurrency are mutually exclusive`, `${path}.rate_schedule`);
  if (c.rate_fraction !== 0) {
    fail(
      `${label}: rate_schedule and rate_fraction are mutually exclusive (the schedule gives requests per second), got rate_fraction ${fmtV(c.rate_fraction)}`,
      `${path}.rate_fraction`,
    );
  }
  if (points.length === 0) fail(`${label}.rate_schedule: at least one point required`, `${path}.rate_schedule`);
  let prev = 0;
  points.forEach((p, j) => {
    const pl = `${label}.rate_schedule[${j}]`;
    const pp = `${path}.rate_schedule[${j}]`;
    if (!Number.isFinite(p.at_s)) fail(`${pl}.at_s must be a finite number, got ${fmtV(p.at_s)}`, `${pp}.at_s`);
    if (j === 0 && p.at_s !== 0)
      fail(`${pl}.at_s must be 0 (the schedule starts at time 0), got ${fmtV(p.at_s)}`, `${pp}.at_s`);
    if (j > 0 && !(p.at_s > prev))
      fail(`${pl}.at_s must be > the previous point's ${fmtV(prev)}, got ${fmtV(p.at_s)}`, `${pp}.at_s`);
    if (!(p.rate >= 0 && p.rate < Infinity))
      fail(`${pl}.rate must be a finite number >= 0, got ${fmtV(p.rate)}`, `${pp}.rate`);
    prev = p.at_s;
  });
  if (!points.some((p) => p.rate > 0))
    fail(`${label}.rate_schedule: at least one rate must be > 0`, `${path}.rate_schedule`);
  return true;
}

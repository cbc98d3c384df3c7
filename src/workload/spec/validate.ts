// Spec validation (docs/behavior.md "The workload spec"): BLIS's checks in its fixed order with its
// exact messages, then ours (./ranges.ts); first failure wins. Returns the offending key path too,
// so callers can point at the line in the file.

import { UserError } from "../../util/errors.js";
import { fmtF } from "../util/format.js";
import { positionSuffix, type PositionMap } from "./decode.js";
import { checkCv, checkDistShape, checkRanges } from "./ranges.js";
import { checkRateSchedule } from "./rateSchedule.js";
import {
  VALID_CATEGORIES,
  VALID_PROCESSES,
  VALID_SLO_CLASSES,
  type ArrivalSpec,
  type ClientSpec,
  type DistSpec,
  type WorkloadSpec,
} from "./types.js";

export interface ValidationFailure {
  message: string;
  /** Spec path of the offending key (for position lookup); "" when none. */
  path: string;
}

class Fail {
  constructor(readonly failure: ValidationFailure) {}
}

function fail(message: string, path: string): never {
  throw new Fail({ message, path });
}

const has = (list: readonly string[], v: string): boolean => list.includes(v);

function checkRate(label: string, v: number, path: string): void {
  if (!Number.isFinite(v)) fail(`${label}.rate_fraction must be a finite number, got ${fmtF(v)}`, path);
  if (v <= 0) fail(`${label}.rate_fraction must be positive, got ${fmtF(v)}`, path);
}

function checkClass(label: string, cls: string, path: string): void {
  if (!has(VALID_SLO_CLASSES, cls)) {
    fail(
      `${label}: unknown slo_class "${cls}"; valid: critical, standard, sheddable, batch, background, or empty`,
      path,
    );
  }
}

function checkProcess(label: string, arrival: ArrivalSpec, path: string): void {
  if (!has(VALID_PROCESSES, arrival.process)) {
    fail(
      `${label}: unknown arrival process "${arrival.process}"; valid: poisson, gamma, weibull, constant`,
      `${path}.process`,
    );
  }
}

function checkDist(label: string, d: DistSpec, path: string): void {
  checkDistShape(label, d, path, fail);
}

/**
 * The closed-loop keys of a client (docs/behavior.md "Closed-loop load"). True when the client is
 * open-loop, so its rate fraction, arrival process and cv need checking.
 */
function checkClosedLoopKeys(label: string, c: ClientSpec, path: string): boolean {
  const users = c.concurrency ?? 0;
  if (users < 0) fail(`${label}: concurrency must be non-negative, got ${users}`, `${path}.concurrency`);
  const think = c.think_time_us ?? 0;
  if (think < 0) fail(`${label}: think_time_us must be non-negative, got ${think}`, `${path}.think_time_us`);
  checkTimeout(label, c.timeout, path, c.slo_target_us);
  if (users === 0) return true;
  if (c.rate_fraction > 0)
    fail(`${label}: concurrency and rate_fraction are mutually exclusive`, `${path}.concurrency`);
  return false;
}

/** A client's or cohort's `timeout` (µs; 0 = no deadline) and `slo_target_us`. */
function checkTimeout(label: string, timeout: number | undefined, path: string, sloTarget?: number): void {
  if (timeout !== undefined && timeout < 0)
    fail(`${label}: timeout must be non-negative, got ${timeout}`, `${path}.timeout`);
  if (sloTarget !== undefined && sloTarget < 0)
    fail(`${label}: slo_target_us must be non-negative, got ${sloTarget}`, `${path}.slo_target_us`);
}

/** Follow-up budgets count virtual users' requests only, so they cannot share a spec with sessions. */
function checkNoMixing(spec: WorkloadSpec): void {
  const users = spec.clients.findIndex((c) => (c.concurrency ?? 0) > 0);
  if (users < 0) return;
  const multiTurn = spec.clients.findIndex((c) => c.reasoning?.multi_turn !== undefined);
  if (multiTurn < 0 && spec.cohorts.length === 0) return;
  fail(
    "concurrency clients and multi-turn clients cannot be mixed in the same spec: follow-up budget accounting does not support this combination",
    multiTurn >= 0 ? `clients[${multiTurn}].reasoning.multi_turn` : "cohorts",
  );
}

/** A trace is the whole workload: no other source beside it (docs/traces.md). */
function checkMooncakeTrace(spec: WorkloadSpec): void {
  const m = spec.mooncake_trace!;
  const other =
    spec.clients.length > 0
      ? "clients"
      : spec.cohorts.length > 0
        ? "cohorts"
        : spec.servegen_data !== undefined
          ? "servegen_data"
          : "";
  if (other !== "") fail(`mooncake_trace is the whole workload; remove ${other} (or the trace)`, other);
  if (spec.inference_perf !== undefined)
    fail("mooncake_trace is the whole workload; remove inference_perf (or the trace)", "inference_perf");
  if (m.path === "") fail("mooncake_trace.path is required", "mooncake_trace.path");
  if (m.block_size < 0)
    fail(`mooncake_trace.block_size must be positive (0 = 512), got ${m.block_size}`, "mooncake_trace.block_size");
  if (!(m.time_scale >= 0 && Number.isFinite(m.time_scale))) {
    fail(
      `mooncake_trace.time_scale must be a finite number > 0 (0 = 1), got ${fmtF(m.time_scale)}`,
      "mooncake_trace.time_scale",
    );
  }
  if (m.concurrency < 0)
    fail(`mooncake_trace.concurrency must be non-negative, got ${m.concurrency}`, "mooncake_trace.concurrency");
}

function validateOrThrow(spec: WorkloadSpec): void {
  if (!has(VALID_CATEGORIES, spec.category)) {
    fail(`unknown category "${spec.category}"; valid: language, multimodal, reasoning`, "category");
  }
  if (!Number.isFinite(spec.aggregate_rate)) {
    fail(`aggregate_rate must be a finite number, got ${fmtF(spec.aggregate_rate)}`, "aggregate_rate");
  }
  // Virtual users need no rate: aggregate_rate matters only when some client or cohort is open-loop.
  // Neither do clients with a rate schedule (their rates are absolute).
  if (spec.mooncake_trace !== undefined) return checkMooncakeTrace(spec);
  const needsRate =
    spec.cohorts.length > 0 ||
    spec.clients.some((c) => !((c.concurrency ?? 0) > 0) && c.rate_schedule === undefined) ||
    spec.clients.length === 0;
  if (needsRate && spec.aggregate_rate <= 0) {
    fail(`aggregate_rate must be positive, got ${fmtF(spec.aggregate_rate)}`, "aggregate_rate");
  }
  if (spec.clients.length === 0 && spec.cohorts.length === 0 && spec.servegen_data === undefined) {
    fail("at least one client, cohort, or servegen_data path required", "");
  }
  spec.clients.forEach((c, i) => {
    const label = `client[${i}]`;
    const path = `clients[${i}]`;
    checkClass(label, c.slo_class, `${path}.slo_class`);
    const scheduled = checkRateSchedule(label, c, path, fail);
    if (checkClosedLoopKeys(label, c, path)) {
      if (!scheduled) checkRate(`client[${i}]`, c.rate_fraction, `${path}.rate_fraction`);
      checkProcess(label, c.arrival, `${path}.arrival`);
      checkCv(label, c.arrival, `${path}.arrival`, fail);
    }
    if (c.prefix_length < 0)
      fail(`${label}: prefix_length must be non-negative, got ${c.prefix_length}`, `${path}.prefix_length`);
    checkDist(`${label}.input_distribution`, c.input_distribution, `${path}.input_distribution`);
    checkDist(`${label}.output_distribution`, c.output_distribution, `${path}.output_distribution`);
  });
  spec.cohorts.forEach((c, i) => {
    const label = `cohort[${i}]`;
    const path = `cohorts[${i}]`;
    if (c.population <= 0) fail(`${label}: population must be positive, got ${c.population}`, `${path}.population`);
    if (c.population > 100000)
      fail(`${label}: population ${c.population} exceeds maximum 100000`, `${path}.population`);
    checkRate(label, c.rate_fraction, `${path}.rate_fraction`);
    checkClass(label, c.slo_class, `${path}.slo_class`);
    checkProcess(label, c.arrival, `${path}.arrival`);
    checkDist(`${label}.input_distribution`, c.input_distribution, `${path}.input_distribution`);
    checkDist(`${label}.output_distribution`, c.output_distribution, `${path}.output_distribution`);
    checkTimeout(label, c.timeout, path, c.slo_target_us);
    if (c.diurnal !== undefined) {
      const r = c.diurnal.peak_to_trough_ratio;
      if (!Number.isFinite(r) || r < 1) {
        fail(
          `${label}: diurnal peak_to_trough_ratio must be a finite number >= 1.0, got ${fmtF(r)}`,
          `${path}.diurnal.peak_to_trough_ratio`,
        );
      }
      const h = c.diurnal.peak_hour;
      if (h < 0 || h > 23) fail(`${label}: diurnal peak_hour must be 0-23, got ${h}`, `${path}.diurnal.peak_hour`);
    }
    if (c.spike !== undefined) {
      if (c.spike.start_time_us < 0) {
        fail(
          `${label}: spike start_time_us must be non-negative, got ${c.spike.start_time_us}`,
          `${path}.spike.start_time_us`,
        );
      }
      if (c.spike.duration_us <= 0)
        fail(`${label}: spike duration_us must be > 0, got ${c.spike.duration_us}`, `${path}.spike.duration_us`);
    }
    if (c.drain !== undefined) {
      if (c.drain.start_time_us < 0) {
        fail(
          `${label}: drain start_time_us must be non-negative, got ${c.drain.start_time_us}`,
          `${path}.drain.start_time_us`,
        );
      }
      if (c.drain.ramp_duration_us <= 0) {
        fail(
          `${label}: drain ramp_duration_us must be > 0, got ${c.drain.ramp_duration_us}`,
          `${path}.drain.ramp_duration_us`,
        );
      }
    }
  });
  checkNoMixing(spec);
  // BLIS's checks come first, so a file BLIS rejects gets BLIS's message.
  checkRanges(spec, fail);
}

/** First validation failure in validation order, or null when the spec is valid. */
export function findValidationFailure(spec: WorkloadSpec): ValidationFailure | null {
  try {
    validateOrThrow(spec);
    return null;
  } catch (err) {
    if (err instanceof Fail) return err.failure;
    throw err;
  }
}

/**
 * Throws UserError(`<prefix>: <message>`) with ` (line L, column C)` appended when the
 * offending key's position is known.
 */
export function validateWorkloadSpec(
  spec: WorkloadSpec,
  positions?: PositionMap,
  prefix = "invalid workload spec",
): void {
  const f = findValidationFailure(spec);
  if (f !== null)
    throw new UserError(`${prefix}: ${f.message}${f.path === "" ? "" : positionSuffix(positions, f.path)}`);
}

/**
 * The spec's own `num_requests` and `horizon` (docs/behavior.md#w23), unless a flag replaces them.
 * Checked before the generation bound, whose message would otherwise blame a missing cap.
 */
export function checkSpecBounds(
  spec: WorkloadSpec,
  replaced: { numRequests: boolean; horizon: boolean },
  positions?: PositionMap,
): void {
  const at = (path: string): string => positionSuffix(positions, path);
  if (!replaced.numRequests && spec.num_requests < 0) {
    throw new UserError(
      `invalid workload spec: num_requests must be > 0 (or absent for no cap), got ${spec.num_requests}${at("num_requests")}`,
    );
  }
  if (!replaced.horizon && spec.horizon < 0) {
    throw new UserError(
      `invalid workload spec: horizon must be > 0 (or absent for none), got ${spec.horizon}${at("horizon")}`,
    );
  }
}

// The jobs on the queue: one simulation each, named by what determines its result (code version,
// run options with the seed, time limit) and its run key, so that enqueuing a run again (a restarted coordinator,
// two sweeps sharing runs) finds the job already there, queued, running or finished.

import { canonicalHash } from "../experiment/canonical.js";
import type { RunInput } from "../config/runOptions.js";
import type { RunOutcome } from "../experiment/pool.js";

/** BullMQ queue name and Redis key prefix. */
export const QUEUE_NAME = "runs";
export const KEY_PREFIX = "blis";

export const JOB_FORMAT = "blis-run/1";

export interface RunJobData {
  format: typeof JOB_FORMAT;
  /** codeVersion() of the coordinator: a worker of another version refuses the job. */
  version: string;
  /** The plan's fingerprint and the run key (for the worker's log). */
  plan: string;
  key: string;
  /** The run options with the seed (encodeInput). */
  input: string;
  timeoutMs: number;
}

/** What a worker returns: the outcome (never "cancelled"), its own wall time, and who ran it. */
export interface RunJobResult {
  outcome: Exclude<RunOutcome, { kind: "cancelled" }>;
  wallS: number;
  worker: string;
}

export function jobId(version: string, input: RunInput, timeoutMs: number, key: string): string {
  return "run-" + canonicalHash({ version, input, timeoutMs, key }).slice(0, 32);
}

/**
 * JSON that keeps what a worker process's structured clone would keep: bigints, non-finite numbers,
 * members set to undefined (option parsing tells given keys from absent ones), and key order.
 */
export function encodeInput(input: RunInput): string {
  return JSON.stringify(input, function (this: unknown, _key: string, value: unknown) {
    if (typeof value === "bigint") return { $bigint: value.toString() };
    if (typeof value === "number" && !Number.isFinite(value)) return { $number: String(value) };
    if (value === undefined) return { $undefined: true };
    return value;
  });
}

export function decodeInput(text: string): RunInput {
  return revive(JSON.parse(text)) as RunInput;
}

function revive(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(revive);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1) {
    if (typeof o["$bigint"] === "string") return BigInt(o["$bigint"]);
    if (typeof o["$number"] === "string") return Number(o["$number"]);
    if (o["$undefined"] === true) return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = revive(o[k]);
  return out;
}

export function isRunJobData(v: unknown): v is RunJobData {
  const d = v as Partial<RunJobData> | null;
  return (
    d !== null &&
    typeof d === "object" &&
    d.format === JOB_FORMAT &&
    typeof d.input === "string" &&
    typeof d.version === "string"
  );
}

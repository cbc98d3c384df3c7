// The inputs of `blis calibrate` besides the trace (docs/calibration.md "Calibrate"): the
// per-request results file of `blis replay --results-path`, and the KV cache hit rate of a
// `--metrics-path` file. Every problem is a one-line UserError naming the file (and entry).

import { z } from "zod";
import { UserError } from "../util/errors.js";
import { FileReadError, readTextFile } from "../workload/util/files.js";

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const nonNegative = finite.refine((v) => v >= 0, "must be >= 0");
const count = z.number().int().nonnegative();

/** One entry of the results file. Keys not listed here (e.g. real_ttft_us) are ignored. */
export const SimResultEntrySchema = z.looseObject({
  request_id: z.number().int().refine(Number.isSafeInteger, "must be a safe integer"),
  ttft_us: nonNegative,
  e2e_us: nonNegative,
  input_tokens: count,
  output_tokens: count,
  slo_class: z.string().optional(),
  model: z.string().optional(),
  itl_mean_us: nonNegative.optional(),
});

export interface SimResultEntry {
  request_id: number;
  /** Server-side TTFT, µs. */
  ttft_us: number;
  /** Server-side E2E, µs. */
  e2e_us: number;
  input_tokens: number;
  output_tokens: number;
  slo_class?: string;
  model?: string;
  /** Mean time per output token, µs. */
  itl_mean_us?: number;
}

function readFile(path: string, what: string): string {
  try {
    return readTextFile(path);
  } catch (err) {
    if (err instanceof FileReadError) throw new UserError(`reading ${what}: ${err.message}`);
    throw err;
  }
}

function parseJson(text: string, file: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UserError(`parsing ${what} ${file}: invalid JSON: ${(err as Error).message.split("\n")[0]}`);
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.map(String).join(".");
  return where === "" ? issue.message : `${where}: ${issue.message}`;
}

/** Parses the text of a results file; `file` names it in errors. An empty array is valid here. */
export function parseSimResults(text: string, file: string): SimResultEntry[] {
  const data = parseJson(text, file, "sim results");
  if (!Array.isArray(data))
    throw new UserError(`parsing sim results ${file}: expected a JSON array of results, got ${describeJsonType(data)}`);
  const out: SimResultEntry[] = [];
  data.forEach((item: unknown, i) => {
    const parsed = SimResultEntrySchema.safeParse(item);
    if (!parsed.success) {
      const id =
        typeof item === "object" && item !== null && "request_id" in item
          ? ` (request_id ${JSON.stringify((item as { request_id: unknown }).request_id)})`
          : "";
      throw new UserError(`parsing sim results ${file}: entry ${i}${id}: ${describeIssue(parsed.error.issues[0]!)}`);
    }
    const e = parsed.data;
    const entry: SimResultEntry = {
      request_id: e.request_id,
      ttft_us: e.ttft_us,
      e2e_us: e.e2e_us,
      input_tokens: e.input_tokens,
      output_tokens: e.output_tokens,
    };
    if (e.slo_class !== undefined) entry.slo_class = e.slo_class;
    if (e.model !== undefined) entry.model = e.model;
    if (e.itl_mean_us !== undefined) entry.itl_mean_us = e.itl_mean_us;
    out.push(entry);
  });
  return out;
}

function describeJsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** Reads a results file; an empty array is fatal (nothing to calibrate against). */
export function loadSimResults(path: string): SimResultEntry[] {
  const entries = parseSimResults(readFile(path, "sim results"), path);
  if (entries.length === 0) throw new UserError(`No sim results found in ${path} — cannot calibrate with empty data`);
  return entries;
}

/**
 * The aggregate `cache_hit_rate` of a metrics JSON (`--sim-metrics`), or undefined when the file
 * has none (the comparison is then skipped). A value that is not a number in [0, 1] is an error.
 */
export function parseSimCacheHitRate(text: string, file: string): number | undefined {
  const data = parseJson(text, file, "--sim-metrics");
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new UserError(`parsing --sim-metrics ${file}: expected a JSON object, got ${describeJsonType(data)}`);
  }
  const v = (data as Record<string, unknown>)["cache_hit_rate"];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new UserError(
      `parsing --sim-metrics ${file}: cache_hit_rate must be a number in [0, 1], got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

export function loadSimCacheHitRate(path: string): number | undefined {
  return parseSimCacheHitRate(readFile(path, "--sim-metrics"), path);
}

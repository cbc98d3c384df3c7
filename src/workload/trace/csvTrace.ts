// Legacy CSV trace → v2 spec (docs/behavior.md "Sources and precedence"). Lossy by design
// (docs/behavior.md#w16): one constant-arrival client at the trace's average rate with constant
// average lengths.

import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { dist, makeClient, makeSpec, type WorkloadSpec } from "../spec/types.js";
import { CsvError, readCsv } from "../util/csv.js";
import { FileReadError, readTextFile } from "../util/files.js";
import { parseGoFloat } from "../../util/parse.js";

function tokenArrayLength(text: string): number | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  if (!Array.isArray(value)) return `cannot unmarshal ${value === null ? "null" : typeof value} into []int`;
  for (const v of value) {
    if (typeof v !== "number" || !Number.isInteger(v)) return `cannot unmarshal ${JSON.stringify(v)} into int`;
  }
  return value.length;
}

/** Summary of a CSV trace: the numbers the converted spec is built from. */
export interface CsvTraceSummary {
  count: number;
  firstArrival: number;
  lastArrival: number;
  totalInput: number;
  totalOutput: number;
}

/** Parses CSV trace text; `horizon` > 0 stops at the first arrival beyond it. */
export function summarizeCsvTrace(text: string, path: string, horizon: number): CsvTraceSummary {
  const records = readCsv(text);
  try {
    const header = records.next();
    if (header.done === true) throw new UserError(`reading CSV header from ${path}: EOF`);
  } catch (err) {
    if (err instanceof CsvError) throw new UserError(`reading CSV header from ${path}: ${err.message}`);
    throw err;
  }
  const s: CsvTraceSummary = { count: 0, firstArrival: 0, lastArrival: 0, totalInput: 0, totalOutput: 0 };
  for (;;) {
    let next;
    try {
      next = records.next();
    } catch (err) {
      if (err instanceof CsvError) throw new UserError(`CSV ${path} row ${s.count}: ${err.message}`);
      throw err;
    }
    if (next.done === true) break;
    const f = next.value.fields;
    const row = `CSV ${path} row ${s.count}`;
    if (f.length < 5) throw new UserError(`${row}: expected at least 5 columns, got ${f.length}`);
    const arrival = rowArrival(f, row, s);
    if (horizon > 0 && arrival > horizon) break;
    const { inLen, outLen } = rowTokenCounts(f, row);
    if (s.count === 0) s.firstArrival = arrival;
    s.lastArrival = arrival;
    s.totalInput += inLen;
    s.totalOutput += outLen;
    s.count++;
  }
  if (s.count === 0) throw new UserError(`empty CSV: no data rows in ${path}`);
  return s;
}

/** A row's arrival time in µs: a finite number >= 0, not before the previous row's. */
function rowArrival(f: readonly string[], row: string, s: CsvTraceSummary): number {
  const seconds = parseGoFloat(f[0]!);
  if (seconds === null) {
    throw new UserError(
      `${row}: invalid arrival_time ${JSON.stringify(f[0])}: strconv.ParseFloat: parsing ${JSON.stringify(f[0])}: invalid syntax`,
    );
  }
  const arrival = Math.trunc(seconds * 1e6);
  if (!(Number.isFinite(arrival) && arrival >= 0))
    throw new UserError(`${row}: arrival_time must be a finite number >= 0, got ${f[0]}`);
  if (s.count > 0 && arrival < s.lastArrival) {
    throw new UserError(`${row}: arrival_time ${f[0]} is before the previous row's (rows must be in arrival order)`);
  }
  return arrival;
}

/** A row's prompt and output lengths (at least one input token). */
function rowTokenCounts(f: readonly string[], row: string): { inLen: number; outLen: number } {
  const inLen = tokenArrayLength(f[3]!);
  if (typeof inLen === "string") throw new UserError(`${row}: invalid prefill_tokens: ${inLen}`);
  if (inLen === 0) throw new UserError(`${row}: prefill_tokens is empty (a request needs at least one input token)`);
  const outLen = tokenArrayLength(f[4]!);
  if (typeof outLen === "string") throw new UserError(`${row}: invalid decode_tokens: ${outLen}`);
  return { inLen, outLen };
}

export function csvTraceSummaryToSpec(s: CsvTraceSummary): WorkloadSpec {
  const span = s.lastArrival - s.firstArrival;
  const rate = span === 0 ? s.count : s.count / (span / 1e6);
  return makeSpec({
    version: "2",
    num_requests: s.count,
    aggregate_rate: rate,
    clients: [
      makeClient({
        id: "csv-trace",
        rate_fraction: 1.0,
        arrival: { process: "constant" },
        input_distribution: dist("constant", { value: s.totalInput / s.count }),
        output_distribution: dist("constant", { value: s.totalOutput / s.count }),
      }),
    ],
  });
}

/** `convert csv-trace --file PATH [--horizon TICKS]` (horizon 0 = none). */
export function convertCsvTraceFile(path: string, horizon = 0): WorkloadSpec {
  if (path === "") throw new UserError("CSV trace path must not be empty");
  let text: string;
  try {
    text = readTextFile(path);
  } catch (err) {
    if (err instanceof FileReadError) throw new UserError(`opening CSV trace ${path}: ${err.message}`);
    throw err;
  }
  return csvTraceSummaryToSpec(summarizeCsvTrace(text, path, horizon));
}

/** `blis run --workload traces` (docs/behavior.md#w16): lossy conversion warning, then seed = --seed. */
export function specFromCsvTraceMode(path: string, horizon: number, seed: bigint, logger?: Logger): WorkloadSpec {
  if (path === "") throw new UserError("--workload-traces-filepath is required when using --workload traces");
  logger?.warn(
    "CSV trace conversion is lossy: arrivals and per-request lengths are not replayed; the trace becomes one constant-rate client with average lengths",
  );
  const spec = convertCsvTraceFile(path, horizon);
  spec.seed = seed;
  return spec;
}

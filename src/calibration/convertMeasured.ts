// `blis convert measured` (docs/traces.md "Measured CSVs"): a per-request CSV with arrival, token
// counts, TTFT and E2E, its columns named by flags, as a trace v2 header and data pair that
// `blis replay`, `blis calibrate` and `blis fit` read.

import { UserError } from "../util/errors.js";
import { readCsv } from "../workload/util/csv.js";
import {
  emptyTraceRecord,
  formatTraceV2Data,
  formatTraceV2Header,
  newTraceHeader,
  type TraceRecord,
  type TraceV2,
} from "../workload/index.js";
import { setGroupPrefixes } from "./measuredCsv.js";

/** Column names of the five measured quantities. */
export interface MeasuredColumns {
  arrival: string;
  input: string;
  output: string;
  ttft: string;
  e2e: string;
}

/** The columns of data/calibration/traces/ (inference-perf per-request output). */
export const DEFAULT_MEASURED_COLUMNS: MeasuredColumns = {
  arrival: "arrival_time_us",
  input: "input_tokens",
  output: "output_tokens",
  ttft: "ttft_us",
  e2e: "e2e_us",
};

const TIME_UNITS: Readonly<Record<string, number>> = { us: 1, ms: 1000, s: 1e6 };

export interface MeasuredOptions {
  columns: MeasuredColumns;
  /** Unit of the arrival, TTFT and E2E columns: us, ms or s. */
  timeUnit: string;
  /** > 0: row k repeats the prompt of row k − cycle (a prefix group per residue); 0 = no sharing known. */
  promptCycle: number;
}

function parseNumber(file: string, line: number, col: string, text: string | undefined): number {
  const v = Number(text);
  if (text === undefined || text.trim() === "" || !Number.isFinite(v)) {
    throw new UserError(`${file}:${line}: column ${col}: not a number: ${JSON.stringify(text ?? "")}`);
  }
  if (v < 0) throw new UserError(`${file}:${line}: column ${col}: negative value ${v}`);
  return v;
}

/** Field index of every named column; a missing one is an error naming the flag's column. */
function columnIndex(
  header: readonly string[],
  file: string,
  cols: MeasuredColumns,
): Record<keyof MeasuredColumns, number> {
  const at = new Map(header.map((n, i) => [n.trim(), i]));
  const out = {} as Record<keyof MeasuredColumns, number>;
  for (const key of Object.keys(cols) as (keyof MeasuredColumns)[]) {
    const i = at.get(cols[key]);
    if (i === undefined)
      throw new UserError(
        `${file}:1: no column "${cols[key]}" (columns: ${header.join(", ")}); name it with --${key}-column`,
      );
    out[key] = i;
  }
  return out;
}

/** The measured CSV as a trace v2 (mode real, microseconds) with send, first- and last-chunk times. */
export function traceFromMeasured(text: string, file: string, o: MeasuredOptions): TraceV2 {
  const scale = TIME_UNITS[o.timeUnit];
  if (scale === undefined) throw new UserError(`--time-unit must be us, ms or s, got "${o.timeUnit}"`);
  if (!(Number.isInteger(o.promptCycle) && o.promptCycle >= 0))
    throw new UserError(`--prompt-cycle must be a non-negative integer, got ${o.promptCycle}`);
  let idx: Record<keyof MeasuredColumns, number> | null = null;
  const recs: TraceRecord[] = [];
  for (const rec of readCsv(text)) {
    if (idx === null) {
      idx = columnIndex(rec.fields, file, o.columns);
      continue;
    }
    const get = (k: keyof MeasuredColumns): number => parseNumber(file, rec.line, o.columns[k], rec.fields[idx![k]]);
    const arrival = Math.round(get("arrival") * scale);
    const ttft = get("ttft") * scale;
    const e2e = get("e2e") * scale;
    if (e2e < ttft)
      throw new UserError(`${file}:${rec.line}: column ${o.columns.e2e}: E2E ${e2e} µs is below TTFT ${ttft} µs`);
    const k = recs.length;
    const output = Math.round(get("output"));
    recs.push({
      ...emptyTraceRecord(),
      request_id: k,
      client_id: "measured",
      prefix_group: o.promptCycle > 0 ? `p${k % o.promptCycle}` : "",
      streaming: true,
      input_tokens: Math.round(get("input")),
      output_tokens: output,
      arrival_time_us: arrival,
      send_time_us: arrival,
      first_chunk_time_us: Math.round(arrival + ttft),
      last_chunk_time_us: Math.round(arrival + e2e),
      num_chunks: output,
    });
  }
  if (idx === null || recs.length === 0)
    throw new UserError(`${file}: no requests (a header row and at least one row are needed)`);
  if (o.promptCycle > 0) setGroupPrefixes(recs);
  return { header: newTraceHeader("real", "microseconds"), layout: "v3", optionalColumns: [], records: recs };
}

/** The header and data texts of the converted CSV, and its request count. */
export function measuredTraceTexts(
  text: string,
  file: string,
  o: MeasuredOptions,
): { header: string; data: string; count: number } {
  const trace = traceFromMeasured(text, file, o);
  return { header: formatTraceV2Header(trace.header), data: formatTraceV2Data(trace), count: trace.records.length };
}

// The trace v2 data CSV (docs/calibration.md "Trace v2"): today's 27 positional base columns with
// optional named columns, or the older 22-column layout. Every error names the file, the line
// and the column.

import { UserError } from "../../util/errors.js";
import { CsvError, csvLine, readCsv } from "../util/csv.js";
import { fmtShortestDecimal } from "../util/format.js";
import { parseGoBool, parseGoFloat, parseGoIntDetailed } from "../../util/parse.js";

export type TraceLayout = "v2" | "v3";

export interface TraceRecord {
  request_id: number;
  client_id: string;
  tenant_id: string;
  slo_class: string;
  /** Optional column; 0 when absent. */
  vllm_priority: number;
  session_id: string;
  round_index: number;
  prefix_group: string;
  /** Shared-prefix length of the row's group (v3; 0 in the older layout). */
  prefix_length: number;
  streaming: boolean;
  /** Suffix tokens only (total − prefix_length) when a prefix group is set. */
  input_tokens: number;
  output_tokens: number;
  text_tokens: number;
  image_tokens: number;
  audio_tokens: number;
  video_tokens: number;
  reason_ratio: number;
  model: string;
  deadline_us: number;
  /** Optional column; 0 when absent. */
  slo_target_us: number;
  /** Server-reported prompt tokens; 0 = not recorded. */
  server_input_tokens: number;
  arrival_time_us: number;
  send_time_us: number;
  first_chunk_time_us: number;
  last_chunk_time_us: number;
  num_chunks: number;
  status: string;
  error_message: string;
  finish_reason: string;
  /** Optional columns; "" / 0 when absent. */
  x_request_id: string;
  adapter: string;
  think_time_us: number;
}

export const OPTIONAL_COLUMNS = ["vllm_priority", "slo_target_us", "x_request_id", "adapter", "think_time_us"] as const;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

export const TRACE_V2_COLUMNS = [
  "request_id",
  "client_id",
  "tenant_id",
  "slo_class",
  "session_id",
  "round_index",
  "prefix_group",
  "streaming",
  "input_tokens",
  "output_tokens",
  "text_tokens",
  "image_tokens",
  "audio_tokens",
  "video_tokens",
  "reason_ratio",
  "arrival_time_us",
  "send_time_us",
  "first_chunk_time_us",
  "last_chunk_time_us",
  "num_chunks",
  "status",
  "error_message",
] as const satisfies readonly (keyof TraceRecord)[];

export const TRACE_V3_COLUMNS = [
  "request_id",
  "client_id",
  "tenant_id",
  "slo_class",
  "session_id",
  "round_index",
  "prefix_group",
  "prefix_length",
  "streaming",
  "input_tokens",
  "output_tokens",
  "text_tokens",
  "image_tokens",
  "audio_tokens",
  "video_tokens",
  "reason_ratio",
  "model",
  "deadline_us",
  "server_input_tokens",
  "arrival_time_us",
  "send_time_us",
  "first_chunk_time_us",
  "last_chunk_time_us",
  "num_chunks",
  "status",
  "error_message",
  "finish_reason",
] as const satisfies readonly (keyof TraceRecord)[];

type Kind = "int" | "count" | "float" | "bool" | "string" | "trimmed";
const KIND: Record<keyof TraceRecord, Kind> = {
  request_id: "int",
  client_id: "string",
  tenant_id: "string",
  slo_class: "string",
  vllm_priority: "count",
  session_id: "string",
  round_index: "int",
  prefix_group: "string",
  prefix_length: "count",
  streaming: "bool",
  input_tokens: "count",
  output_tokens: "count",
  text_tokens: "count",
  image_tokens: "count",
  audio_tokens: "count",
  video_tokens: "count",
  reason_ratio: "float",
  model: "string",
  deadline_us: "count",
  slo_target_us: "count",
  server_input_tokens: "count",
  arrival_time_us: "int",
  send_time_us: "int",
  first_chunk_time_us: "int",
  last_chunk_time_us: "int",
  num_chunks: "count",
  status: "string",
  error_message: "trimmed",
  finish_reason: "string",
  x_request_id: "string",
  adapter: "string",
  think_time_us: "count",
};

export function emptyTraceRecord(): TraceRecord {
  return {
    request_id: 0,
    client_id: "",
    tenant_id: "",
    slo_class: "",
    vllm_priority: 0,
    session_id: "",
    round_index: 0,
    prefix_group: "",
    prefix_length: 0,
    streaming: false,
    input_tokens: 0,
    output_tokens: 0,
    text_tokens: 0,
    image_tokens: 0,
    audio_tokens: 0,
    video_tokens: 0,
    reason_ratio: 0,
    model: "",
    deadline_us: 0,
    slo_target_us: 0,
    server_input_tokens: 0,
    arrival_time_us: 0,
    send_time_us: 0,
    first_chunk_time_us: 0,
    last_chunk_time_us: 0,
    num_chunks: 0,
    status: "ok",
    error_message: "",
    finish_reason: "",
    x_request_id: "",
    adapter: "",
    think_time_us: 0,
  };
}

/** The column order for a set of optional columns (docs/calibration.md "Trace v2"). */
export function v3Columns(optional: readonly OptionalColumn[]): (keyof TraceRecord)[] {
  const has = new Set(optional);
  const out: (keyof TraceRecord)[] = [];
  for (const c of TRACE_V3_COLUMNS) {
    out.push(c);
    if (c === "slo_class" && has.has("vllm_priority")) out.push("vllm_priority");
    if (c === "deadline_us" && has.has("slo_target_us")) out.push("slo_target_us");
  }
  for (const c of ["x_request_id", "adapter", "think_time_us"] as const) if (has.has(c)) out.push(c);
  return out;
}

const KNOWN = new Set<string>([...TRACE_V3_COLUMNS, ...OPTIONAL_COLUMNS]);

/** Layout and column list from the header row. */
function columnsOf(
  header: readonly string[],
  file: string,
): { layout: TraceLayout; optional: OptionalColumn[]; columns: (keyof TraceRecord)[] } {
  const names = header.map((h) => h.trim());
  const legacy = names.length === TRACE_V2_COLUMNS.length && !names.includes("prefix_length");
  if (legacy) {
    names.forEach((n, i) => {
      if (n !== TRACE_V2_COLUMNS[i]) {
        throw new UserError(
          `${file} line 1, column ${i + 1}: expected "${TRACE_V2_COLUMNS[i]}" (22-column layout), found "${n}"`,
        );
      }
    });
    return { layout: "v2", optional: [], columns: [...TRACE_V2_COLUMNS] };
  }
  names.forEach((n, i) => {
    if (!KNOWN.has(n)) throw new UserError(`${file} line 1, column ${i + 1}: unknown column "${n}"`);
  });
  const optional = OPTIONAL_COLUMNS.filter((c) => names.includes(c));
  const columns = v3Columns(optional);
  for (let i = 0; i < Math.max(columns.length, names.length); i++) {
    if (names[i] !== columns[i]) {
      const found = names[i] === undefined ? "the end of the row" : `"${names[i]}"`;
      const want = columns[i] === undefined ? "no further column" : `"${columns[i]}"`;
      throw new UserError(`${file} line 1, column ${i + 1}: expected ${want}, found ${found}`);
    }
  }
  return { layout: "v3", optional, columns };
}

function cell(kind: Kind, text: string, where: () => string): number | string | boolean {
  switch (kind) {
    case "string":
      return text;
    case "trimmed":
      return text.trim();
    case "bool": {
      const v = parseGoBool(text);
      if (v === null) throw new UserError(`${where()}: parsing ${JSON.stringify(text)}: not a boolean`);
      return v;
    }
    case "float": {
      const v = parseGoFloat(text);
      if (v === null) throw new UserError(`${where()}: parsing ${JSON.stringify(text)}: invalid syntax`);
      return v;
    }
    default: {
      const r = parseGoIntDetailed(text);
      if (!r.ok) throw new UserError(`${where()}: parsing ${JSON.stringify(text)}: ${r.detail}`);
      if (kind === "count" && r.value < 0) throw new UserError(`${where()}: must be >= 0, got ${r.value}`);
      return r.value;
    }
  }
}

/** Parses a data CSV; `file` names it in errors. */
export function parseTraceData(
  text: string,
  file: string,
): { layout: TraceLayout; optionalColumns: OptionalColumn[]; records: TraceRecord[] } {
  const out: TraceRecord[] = [];
  let cols: ReturnType<typeof columnsOf> | null = null;
  try {
    for (const rec of readCsv(text)) {
      if (cols === null) {
        cols = columnsOf(rec.fields, file);
        continue;
      }
      const r = emptyTraceRecord() as unknown as Record<string, unknown>;
      const f = rec.fields;
      for (let i = 0; i < cols.columns.length; i++) {
        const name = cols.columns[i]!;
        r[name] = cell(KIND[name], f[i]!, () => `${file} line ${rec.line}, column ${name}`);
      }
      const row = r as unknown as TraceRecord;
      if (cols.layout === "v2") row.status = f[20]!;
      if (row.deadline_us > 0 && row.arrival_time_us > 0 && row.deadline_us < row.arrival_time_us) {
        throw new UserError(
          `${file} line ${rec.line}, column deadline_us: deadline ${row.deadline_us} precedes the arrival ${row.arrival_time_us}`,
        );
      }
      for (const col of ["arrival_time_us", "send_time_us"] as const) {
        if (row[col] < 0) throw new UserError(`${file} line ${rec.line}, column ${col}: must be >= 0, got ${row[col]}`);
      }
      if (row.reason_ratio < 0 || row.reason_ratio > 1) {
        throw new UserError(
          `${file} line ${rec.line}, column reason_ratio: must be in [0, 1], got ${row.reason_ratio}`,
        );
      }
      out.push(row);
    }
  } catch (err) {
    if (err instanceof CsvError)
      throw new UserError(`${file}: ${err.message} (the rows must have as many cells as the header row)`);
    throw err;
  }
  if (cols === null) throw new UserError(`${file}: empty trace data (no header row)`);
  return { layout: cols.layout, optionalColumns: cols.optional, records: out };
}

function formatCell(kind: Kind, v: unknown): string {
  if (kind === "bool") return v ? "true" : "false";
  if (kind === "float") return fmtShortestDecimal(v as number);
  return String(v);
}

export function formatTraceData(
  records: readonly TraceRecord[],
  layout: TraceLayout,
  optional: readonly OptionalColumn[],
): string {
  const columns: readonly (keyof TraceRecord)[] = layout === "v2" ? TRACE_V2_COLUMNS : v3Columns(optional);
  const parts: string[] = [csvLine(columns)];
  for (const r of records) parts.push(csvLine(columns.map((c) => formatCell(KIND[c], r[c]))));
  return parts.join("");
}

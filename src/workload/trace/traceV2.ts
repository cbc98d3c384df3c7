// Trace v2 (workload.md §7.2): a strict header YAML plus a 22-column data CSV.
// Load, format/export.

import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { UserError } from "../../util/errors.js";
import { parseYamlStrict } from "../spec/load.js";
import { float, int, obj, opt, str, type Infer } from "../spec/schema.js";
import { CsvError, csvLine, readCsv } from "../util/csv.js";
import { FileReadError, readTextFile } from "../util/files.js";
import { fmtShortestDecimal } from "../util/format.js";
import { parseGoBool, parseGoFloat, parseGoInt } from "../util/goparse.js";

export const TraceServerSchema = obj("server", {
  type: str,
  model: str,
  tensor_parallel: int,
  max_num_seqs: int,
  block_size: int,
  gpu_memory_utilization: float,
  max_model_len: int,
});
export const TraceNetworkSchema = obj("network", { measured_rtt_ms: float });
export const TraceHeaderSchema = obj("trace header", {
  trace_version: int,
  time_unit: str,
  created_at: str,
  mode: str,
  warm_up_requests: int,
  workload_spec: str,
  server: opt(TraceServerSchema),
  network: opt(TraceNetworkSchema),
});
export type TraceHeader = Infer<typeof TraceHeaderSchema>;

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
] as const;

export interface TraceRecord {
  request_id: number;
  client_id: string;
  tenant_id: string;
  slo_class: string;
  session_id: string;
  round_index: number;
  prefix_group: string;
  streaming: boolean;
  input_tokens: number;
  output_tokens: number;
  text_tokens: number;
  image_tokens: number;
  audio_tokens: number;
  video_tokens: number;
  reason_ratio: number;
  arrival_time_us: number;
  send_time_us: number;
  first_chunk_time_us: number;
  last_chunk_time_us: number;
  num_chunks: number;
  status: string;
  error_message: string;
}

export interface TraceV2 {
  header: TraceHeader;
  records: TraceRecord[];
}

export function parseTraceV2Header(text: string): TraceHeader {
  return parseYamlStrict(text, TraceHeaderSchema, "parsing trace header");
}

function intCell(fields: readonly string[], i: number): number {
  const text = fields[i]!;
  const r = parseGoInt(text);
  if (!r.ok) throw new UserError(`parsing ${TRACE_V2_COLUMNS[i]} ${JSON.stringify(text)}: ${r.detail}`);
  return r.value;
}

function floatCell(fields: readonly string[], i: number): number {
  const text = fields[i]!;
  const v = parseGoFloat(text);
  if (v === null) {
    throw new UserError(`parsing ${TRACE_V2_COLUMNS[i]} ${JSON.stringify(text)}: strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  return v;
}

function boolCell(fields: readonly string[], i: number): boolean {
  const text = fields[i]!;
  const v = parseGoBool(text);
  if (v === null) {
    throw new UserError(`parsing ${TRACE_V2_COLUMNS[i]} ${JSON.stringify(text)}: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  return v;
}

/** Parses the data CSV (header row skipped, not checked). */
export function parseTraceV2Data(text: string): TraceRecord[] {
  const out: TraceRecord[] = [];
  let first = true;
  try {
    for (const rec of readCsv(text)) {
      if (first) {
        first = false;
        continue;
      }
      const f = rec.fields;
      if (f.length < TRACE_V2_COLUMNS.length) throw new UserError(`CSV row has ${f.length} columns, expected ${TRACE_V2_COLUMNS.length}`);
      out.push({
        request_id: intCell(f, 0),
        client_id: f[1]!,
        tenant_id: f[2]!,
        slo_class: f[3]!,
        session_id: f[4]!,
        round_index: intCell(f, 5),
        prefix_group: f[6]!,
        streaming: boolCell(f, 7),
        input_tokens: intCell(f, 8),
        output_tokens: intCell(f, 9),
        text_tokens: intCell(f, 10),
        image_tokens: intCell(f, 11),
        audio_tokens: intCell(f, 12),
        video_tokens: intCell(f, 13),
        reason_ratio: floatCell(f, 14),
        arrival_time_us: intCell(f, 15),
        send_time_us: intCell(f, 16),
        first_chunk_time_us: intCell(f, 17),
        last_chunk_time_us: intCell(f, 18),
        num_chunks: intCell(f, 19),
        status: f[20]!,
        error_message: f[21]!.trim(),
      });
    }
  } catch (err) {
    if (err instanceof CsvError) throw new UserError(`reading trace CSV: ${err.message}`);
    throw err;
  }
  return out;
}

function read(path: string, what: string): string {
  try {
    return readTextFile(path);
  } catch (err) {
    if (err instanceof FileReadError) throw new UserError(`reading ${what}: ${err.message}`);
    throw err;
  }
}

export function loadTraceV2(headerPath: string, dataPath: string): TraceV2 {
  const header = parseTraceV2Header(read(headerPath, "trace header"));
  let records: TraceRecord[];
  try {
    records = parseTraceV2Data(read(dataPath, "trace data"));
  } catch (err) {
    if (err instanceof UserError && !err.message.startsWith("reading trace data")) {
      throw new UserError(`reading trace data ${dataPath}: ${err.message}`);
    }
    throw err;
  }
  return { header, records };
}

/** Header YAML with empty optional keys omitted. */
export function formatTraceV2Header(h: TraceHeader): string {
  const out: Record<string, unknown> = { trace_version: h.trace_version, time_unit: h.time_unit };
  if (h.created_at !== "") out["created_at"] = h.created_at;
  out["mode"] = h.mode;
  out["warm_up_requests"] = h.warm_up_requests;
  if (h.workload_spec !== "") out["workload_spec"] = h.workload_spec;
  if (h.server !== undefined) out["server"] = { ...h.server };
  if (h.network !== undefined) out["network"] = { ...h.network };
  return stringify(out, { lineWidth: 0 });
}

export function formatTraceV2Data(records: readonly TraceRecord[]): string {
  const parts: string[] = [csvLine(TRACE_V2_COLUMNS)];
  for (const r of records) {
    parts.push(
      csvLine([
        String(r.request_id),
        r.client_id,
        r.tenant_id,
        r.slo_class,
        r.session_id,
        String(r.round_index),
        r.prefix_group,
        r.streaming ? "true" : "false",
        String(r.input_tokens),
        String(r.output_tokens),
        String(r.text_tokens),
        String(r.image_tokens),
        String(r.audio_tokens),
        String(r.video_tokens),
        fmtShortestDecimal(r.reason_ratio),
        String(r.arrival_time_us),
        String(r.send_time_us),
        String(r.first_chunk_time_us),
        String(r.last_chunk_time_us),
        String(r.num_chunks),
        r.status,
        r.error_message,
      ]),
    );
  }
  return parts.join("");
}

export function exportTraceV2(trace: TraceV2, headerPath: string, dataPath: string): void {
  writeFileSync(headerPath, formatTraceV2Header(trace.header));
  writeFileSync(dataPath, formatTraceV2Data(trace.records));
}

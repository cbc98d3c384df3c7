// Trace v2 (docs/calibration.md "Trace v2"): a strict header YAML plus a data CSV. Today's
// layout has 27 positional base columns plus optional named ones (trace_version 3); the older
// 22-column layout is still read, and replayed as before.

import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { UserError } from "../../util/errors.js";
import { parseYamlStrict } from "../spec/load.js";
import { float, int, obj, opt, record, str, type Infer } from "../spec/schema.js";
import { DATA_FILE_LIMIT, SPEC_FILE_LIMIT } from "../../util/inputFile.js";
import { FileReadError, readTextFile } from "../util/files.js";
import {
  formatTraceData,
  parseTraceData,
  type OptionalColumn,
  type TraceLayout,
  type TraceRecord,
} from "./traceV2Csv.js";
import { dirname, resolve } from "node:path";
import { makeDirs } from "../../util/makeDirs.js";

export { TRACE_V2_COLUMNS, TRACE_V3_COLUMNS, OPTIONAL_COLUMNS, emptyTraceRecord } from "./traceV2Csv.js";
export type { OptionalColumn, TraceLayout, TraceRecord } from "./traceV2Csv.js";

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
export const SloTargetSchema = obj("goodput_slo_targets", { ttft_ms: float, itl_ms: float, e2e_ms: float });
export const ObservedKvMetricsSchema = obj("observed_kv_metrics", {
  source: str,
  hit_rate: float,
  block_hits: int,
  block_queries: int,
  read_time_total: float,
  write_time_total: float,
  vllm_commit: str,
});
export const TraceHeaderSchema = obj("trace header", {
  trace_version: int,
  time_unit: str,
  created_at: str,
  mode: str,
  warm_up_requests: int,
  workload_seed: opt(int),
  workload_spec: str,
  session_context_growth: str,
  server: opt(TraceServerSchema),
  network: opt(TraceNetworkSchema),
  goodput_slo_targets: opt(record(SloTargetSchema)),
  observed_kv_metrics: opt(ObservedKvMetricsSchema),
});
export type TraceHeader = Infer<typeof TraceHeaderSchema> & {
  /** The resolved KV-offload block, kept as read (that subsystem is not modelled). */
  kv_offload?: unknown;
};

export interface TraceV2 {
  header: TraceHeader;
  /** "v2": the older 22-column layout; "v3": today's 27 base columns. */
  layout: TraceLayout;
  /** Optional columns present in the data CSV, in file order. */
  optionalColumns: OptionalColumn[];
  records: TraceRecord[];
}

export function parseTraceV2Header(text: string, what = "parsing trace header"): TraceHeader {
  // kv_offload is free-form; it is kept aside so that the rest stays strict.
  let kvOffload: unknown;
  const stripped = text.replace(/^kv_offload:.*(\n[ \t]+.*)*\n?/m, (block) => {
    kvOffload = block;
    return "";
  });
  const h: TraceHeader = parseYamlStrict(stripped, TraceHeaderSchema, what);
  if (kvOffload !== undefined) h.kv_offload = kvOffload;
  if (h.warm_up_requests < 0) throw new UserError(`${what}: warm_up_requests must be >= 0, got ${h.warm_up_requests}`);
  // 2 is the older 22-column layout, 3 today's; another version's columns would be misread.
  if (h.trace_version !== 2 && h.trace_version !== 3) {
    throw new UserError(`${what}: trace_version must be 2 or 3, got ${h.trace_version}`);
  }
  return h;
}

export function parseTraceV2Data(text: string, file = "trace data"): Omit<TraceV2, "header"> {
  return parseTraceData(text, file);
}

function read(path: string, what: string, limit: number): string {
  try {
    return readTextFile(path, limit);
  } catch (err) {
    if (err instanceof FileReadError) throw new UserError(`reading ${what}: ${err.message}`);
    throw err;
  }
}

/** Reads a header and data file; the header's trace_version and the data layout must agree. */
export function loadTraceV2(headerPath: string, dataPath: string): TraceV2 {
  const header = parseTraceV2Header(
    read(headerPath, "trace header", SPEC_FILE_LIMIT),
    `parsing trace header ${headerPath}`,
  );
  const data = parseTraceV2Data(read(dataPath, "trace data", DATA_FILE_LIMIT), dataPath);
  if (header.trace_version >= 3 && data.layout === "v2") {
    throw new UserError(
      `${dataPath}: the header ${headerPath} says trace_version ${header.trace_version} but the data has the older 22-column layout`,
    );
  }
  return { header, ...data };
}

/** Header YAML with empty optional keys omitted. */
export function formatTraceV2Header(h: TraceHeader): string {
  const out: Record<string, unknown> = { trace_version: h.trace_version, time_unit: h.time_unit };
  if (h.created_at !== "") out["created_at"] = h.created_at;
  out["mode"] = h.mode;
  out["warm_up_requests"] = h.warm_up_requests;
  if (h.workload_seed !== undefined) out["workload_seed"] = h.workload_seed;
  if (h.workload_spec !== "") out["workload_spec"] = h.workload_spec;
  if (h.session_context_growth !== "") out["session_context_growth"] = h.session_context_growth;
  if (h.server !== undefined) out["server"] = { ...h.server };
  if (h.network !== undefined) out["network"] = { ...h.network };
  if (h.goodput_slo_targets !== undefined) out["goodput_slo_targets"] = h.goodput_slo_targets;
  if (h.observed_kv_metrics !== undefined) out["observed_kv_metrics"] = { ...h.observed_kv_metrics };
  const text = stringify(out, { lineWidth: 0 });
  return typeof h.kv_offload === "string"
    ? text + (h.kv_offload.endsWith("\n") ? h.kv_offload : h.kv_offload + "\n")
    : text;
}

export function formatTraceV2Data(trace: Pick<TraceV2, "layout" | "optionalColumns" | "records">): string {
  return formatTraceData(trace.records, trace.layout, trace.optionalColumns);
}

export function exportTraceV2(trace: TraceV2, headerPath: string, dataPath: string): void {
  makeDirs(dirname(resolve(headerPath)));
  makeDirs(dirname(resolve(dataPath)));
  writeFileSync(headerPath, formatTraceV2Header(trace.header));
  writeFileSync(dataPath, formatTraceV2Data(trace));
}

/** A fresh v3 header for traces the simulator writes. */
export function newTraceHeader(
  mode: "real" | "generated" | "replayed",
  timeUnit = mode === "real" ? "us" : "microseconds",
): TraceHeader {
  return {
    trace_version: 3,
    time_unit: timeUnit,
    created_at: "",
    mode,
    warm_up_requests: 0,
    workload_spec: "",
    session_context_growth: "",
  };
}

// Files written by `blis observe` (docs/observe.md "What is recorded"): a trace v2 header (mode real,
// trace_version 3) and data CSV in today's layout, and the optional ITL CSV.

import { writeFileSync } from "node:fs";
import { exportTraceV2, newTraceHeader, type OptionalColumn, type TraceV2 } from "../workload/index.js";
import type { ObserveResult } from "./observe.js";
import type { ItlRow } from "./rows.js";
import { dirname, resolve } from "node:path";
import { makeDirs } from "../util/makeDirs.js";

export interface TraceMeta {
  /** Model name sent to the server. */
  model: string;
  /** `server.type` of the header (e.g. vllm). */
  serverType: string;
  warmupRequests: number;
  /** `--rtt-ms`. */
  rttMs: number;
  /** Workload spec path or `preset:<name>`; "" = none. */
  workloadSpec: string;
  /** Generator seed, when it fits a JSON number. */
  workloadSeed?: number;
  /** RFC 3339 UTC creation time ("" = omitted). */
  createdAt: string;
}

/** RFC 3339 UTC without fractional seconds. */
export function rfc3339Utc(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, "Z");
}

export function buildObservedTrace(result: Pick<ObserveResult, "records">, meta: TraceMeta): TraceV2 {
  const header = newTraceHeader("real");
  header.created_at = meta.createdAt;
  header.warm_up_requests = meta.warmupRequests;
  header.workload_spec = meta.workloadSpec;
  if (meta.workloadSeed !== undefined) header.workload_seed = meta.workloadSeed;
  header.server = {
    type: meta.serverType,
    model: meta.model,
    tensor_parallel: 0,
    max_num_seqs: 0,
    block_size: 0,
    gpu_memory_utilization: 0,
    max_model_len: 0,
  };
  header.network = { measured_rtt_ms: meta.rttMs };
  // vllm_priority is present when a row has an SLO class; x_request_id always (mode real).
  const optionalColumns: OptionalColumn[] = [];
  if (result.records.some((r) => r.slo_class !== "")) optionalColumns.push("vllm_priority");
  optionalColumns.push("x_request_id");
  return { header, layout: "v3", optionalColumns, records: result.records };
}

export function writeObservedTrace(trace: TraceV2, headerPath: string, dataPath: string): void {
  exportTraceV2(trace, headerPath, dataPath);
}

/** `<trace data without .csv>.itl.csv`. */
export function defaultItlPath(dataPath: string): string {
  return dataPath.replace(/\.csv$/i, "") + ".itl.csv";
}

export function formatItlCsv(rows: readonly ItlRow[]): string {
  const parts = ["request_id,chunk_index,timestamp_us\n"];
  for (const r of rows) parts.push(`${r.requestId},${r.chunkIndex},${r.timestampUs}\n`);
  return parts.join("");
}

export function writeItlCsv(rows: readonly ItlRow[], path: string): void {
  makeDirs(dirname(resolve(path)));
  writeFileSync(path, formatItlCsv(rows));
}

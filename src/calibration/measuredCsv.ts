// Per-request measurement files of the calibration data set (docs/calibration.md "Fit", data/calibration/README.md),
// turned
// into trace v2 with measurements so that replay, calibrate and fit treat every source alike.

import { UserError } from "../util/errors.js";
import { readCsv } from "../workload/util/csv.js";
import { emptyTraceRecord, newTraceHeader, type TraceRecord, type TraceV2 } from "../workload/index.js";

/** Prompts repeat every this many requests in the inference-perf runs (request k = request k − 100). */
export const PROMPT_CYCLE = 100;

interface Columns {
  [name: string]: number;
}

function table(
  text: string,
  file: string,
  required: readonly string[],
): { cols: Columns; rows: { line: number; f: string[] }[] } {
  const rows: { line: number; f: string[] }[] = [];
  let cols: Columns | null = null;
  for (const rec of readCsv(text)) {
    if (cols === null) {
      cols = {};
      rec.fields.forEach((n, i) => ((cols as Columns)[n.trim()] = i));
      for (const r of required) if (!(r in cols)) throw new UserError(`${file} line 1: missing column "${r}"`);
      continue;
    }
    rows.push({ line: rec.line, f: rec.fields });
  }
  if (cols === null) throw new UserError(`${file}: empty file`);
  return { cols, rows };
}

function num(file: string, line: number, col: string, text: string | undefined, allowNegative = false): number {
  const v = Number(text);
  if (text === undefined || text.trim() === "" || !Number.isFinite(v)) {
    throw new UserError(`${file} line ${line}, column ${col}: not a number: ${JSON.stringify(text ?? "")}`);
  }
  if (!allowNegative && v < 0) throw new UserError(`${file} line ${line}, column ${col}: negative value ${v}`);
  return v;
}

/**
 * The inference-perf per-request CSV (arrival_time_us, input_tokens, output_tokens, ttft_us,
 * e2e_us). Row k repeats the prompt of row k − 100: prefix group p<k mod 100> whose prefix is the
 * shortest prompt of the group, the rest of each prompt its own suffix.
 */
export function traceFromInferencePerfCsv(text: string, file: string, cycle = PROMPT_CYCLE): TraceV2 {
  const need = ["arrival_time_us", "input_tokens", "output_tokens", "ttft_us", "e2e_us"];
  const { cols, rows } = table(text, file, need);
  const recs: TraceRecord[] = rows.map(({ line, f }, k) => {
    const at = (c: string): number => num(file, line, c, f[cols[c]!]);
    const arrival = Math.round(at("arrival_time_us"));
    const ttft = at("ttft_us");
    const e2e = at("e2e_us");
    if (e2e < ttft) throw new UserError(`${file} line ${line}, column e2e_us: E2E ${e2e} is below TTFT ${ttft}`);
    return {
      ...emptyTraceRecord(),
      request_id: k,
      client_id: "inference-perf",
      prefix_group: cycle > 0 ? `p${k % cycle}` : "",
      streaming: true,
      input_tokens: Math.round(at("input_tokens")),
      output_tokens: Math.round(at("output_tokens")),
      arrival_time_us: arrival,
      send_time_us: arrival,
      first_chunk_time_us: Math.round(arrival + ttft),
      last_chunk_time_us: Math.round(arrival + e2e),
      num_chunks: Math.round(at("output_tokens")),
    };
  });
  if (cycle > 0) setGroupPrefixes(recs);
  return { header: newTraceHeader("real", "microseconds"), layout: "v3", optionalColumns: [], records: recs };
}

/** A group's prefix is its shortest prompt; input_tokens becomes the suffix beyond it. */
export function setGroupPrefixes(recs: TraceRecord[]): void {
  const shortest = new Map<string, number>();
  for (const r of recs) {
    if (r.prefix_group === "") continue;
    const cur = shortest.get(r.prefix_group);
    if (cur === undefined || r.input_tokens < cur) shortest.set(r.prefix_group, r.input_tokens);
  }
  for (const r of recs) {
    if (r.prefix_group === "") continue;
    const p = shortest.get(r.prefix_group)!;
    r.prefix_length = p;
    r.input_tokens -= p;
  }
}

/**
 * An LLMServingSim request log (arrival_time_us, input_tokens, output_tokens, queued_us,
 * scheduled_us, first_token_us, last_token_us): the engine queue entry is the send time, as in
 * that project's own TTFT and E2E.
 */
export function traceFromEngineCsv(text: string, file: string): TraceV2 {
  const need = ["arrival_time_us", "input_tokens", "output_tokens", "queued_us", "first_token_us", "last_token_us"];
  const { cols, rows } = table(text, file, need);
  const recs: TraceRecord[] = rows.map(({ line, f }, k) => {
    const at = (c: string): number => num(file, line, c, f[cols[c]!]);
    const queued = Math.round(at("queued_us"));
    const first = Math.round(at("first_token_us"));
    const last = Math.round(at("last_token_us"));
    if (first < queued)
      throw new UserError(
        `${file} line ${line}, column first_token_us: negative latency (first token ${first} before queue entry ${queued})`,
      );
    if (last < first)
      throw new UserError(`${file} line ${line}, column last_token_us: last token ${last} before the first ${first}`);
    return {
      ...emptyTraceRecord(),
      request_id: k,
      client_id: "engine",
      streaming: true,
      input_tokens: Math.round(at("input_tokens")),
      output_tokens: Math.round(at("output_tokens")),
      arrival_time_us: queued,
      send_time_us: queued,
      first_chunk_time_us: first,
      last_chunk_time_us: last,
      num_chunks: Math.round(at("output_tokens")),
    };
  });
  return { header: newTraceHeader("real", "microseconds"), layout: "v3", optionalColumns: [], records: recs };
}

/** Which per-request CSV layout a header row belongs to, or null. */
export function measuredCsvKind(text: string): "inference-perf" | "engine" | null {
  const first = text.slice(0, text.indexOf("\n") >= 0 ? text.indexOf("\n") : text.length);
  if (first.includes("queued_us") && first.includes("first_token_us")) return "engine";
  if (first.includes("ttft_us") && first.includes("e2e_us")) return "inference-perf";
  return null;
}

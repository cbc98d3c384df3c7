// The per-chunk timestamps of `blis observe --record-itl` (docs/calibration.md "Calibrate"):
// `request_id,chunk_index,timestamp_us`, header row skipped, every value an integer >= 0.

import { UserError } from "../util/errors.js";
import { FileReadError, readTextFile } from "../workload/util/files.js";
import { parseGoIntDetailed } from "../util/parse.js";

export interface ItlRow {
  request_id: number;
  /** 0 = the first chunk. */
  chunk_index: number;
  /** Absolute Unix time of the chunk, µs. */
  timestamp_us: number;
}

export type ItlRows = ItlRow[];

const COLUMNS = ["request_id", "chunk_index", "timestamp_us"] as const;

/** Parses ITL CSV text; `file` names it in errors. Blank lines are skipped, extra cells ignored. */
export function parseItlCsv(text: string, file: string): ItlRows {
  const lines = text.split("\n");
  const out: ItlRows = [];
  let headerSeen = false;
  lines.forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    if (!headerSeen) {
      headerSeen = true;
      return;
    }
    const where = `${file} line ${i + 1}`;
    const cells = line.split(",");
    if (cells.length < 3)
      throw new UserError(`${where}: ITL row has ${cells.length} column${cells.length === 1 ? "" : "s"}, expected 3`);
    const values = COLUMNS.map((name, k) => {
      const text = cells[k]!.trim();
      const r = parseGoIntDetailed(text);
      if (!r.ok) throw new UserError(`${where}, column ${name}: parsing ${JSON.stringify(text)}: not an integer`);
      if (!Number.isSafeInteger(r.value)) throw new UserError(`${where}, column ${name}: ${text} is out of range`);
      if (r.value < 0) throw new UserError(`${where}, column ${name}: must be >= 0, got ${r.value}`);
      return r.value;
    });
    out.push({ request_id: values[0]!, chunk_index: values[1]!, timestamp_us: values[2]! });
  });
  if (!headerSeen) throw new UserError(`${file}: empty ITL data (no header row)`);
  return out;
}

export function loadItlCsv(path: string): ItlRows {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (err) {
    if (err instanceof FileReadError) throw new UserError(`reading ITL data: ${err.message}`);
    throw err;
  }
  return parseItlCsv(text, path);
}

/** Chunk timestamps per request, in chunk-index order (file order among equal indices). */
export function groupItlRows(rows: readonly ItlRow[]): Map<number, number[]> {
  const byId = new Map<number, ItlRow[]>();
  for (const r of rows) {
    const list = byId.get(r.request_id);
    if (list === undefined) byId.set(r.request_id, [r]);
    else list.push(r);
  }
  const out = new Map<number, number[]>();
  for (const [id, list] of byId) {
    // Array.prototype.sort is stable, so equal chunk indices keep their file order.
    list.sort((a, b) => a.chunk_index - b.chunk_index);
    out.set(
      id,
      list.map((r) => r.timestamp_us),
    );
  }
  return out;
}

/**
 * Mean of the non-negative consecutive deltas of a request's chunk times (µs). null when there
 * are fewer than 2 chunks; "dropped" when every delta is negative (clock skew).
 */
export function realItlMean(timestamps: readonly number[]): number | null | "dropped" {
  if (timestamps.length < 2) return null;
  let sum = 0;
  let n = 0;
  for (let i = 1; i < timestamps.length; i++) {
    const d = timestamps[i]! - timestamps[i - 1]!;
    if (d < 0) continue;
    sum += d;
    n++;
  }
  return n === 0 ? "dropped" : sum / n;
}

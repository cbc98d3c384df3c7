// ServeGen data directory loader (docs/behavior.md "The workload spec", docs/behavior.md#w17): one
// empirical client per chunk, at the chunk's peak rate, with the first usable input/output PDF
// window.

import { join } from "node:path";
import type { Logger } from "../../util/log.js";
import { CsvError, readCsv } from "../util/csv.js";
import { FileReadError, listDirectory, readTextFile } from "../util/files.js";
import { parseGoFloat } from "../../util/parse.js";
import { makeClient, type ArrivalSpec, type ClientSpec } from "./types.js";

export class ServeGenError extends Error {}

const CHUNK_TRACE = /^chunk-(.*)-trace\.csv$/;

/** Go string order (byte-wise) for ASCII names; JS default sort is UTF-16 order, equal for ASCII. */
function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function inSpan(t: number, spanStart: number, spanEnd: number): boolean {
  if (spanStart !== 0 && t < spanStart) return false;
  if (spanEnd !== 0 && t >= spanEnd) return false;
  return true;
}

/** Parses a Python-dict text like `{100: 0.5, 200.0: 3e-1,}` into bin → weight. */
export function parsePdfDict(text: string): Map<number, number> {
  const s = text.trim();
  if (!s.startsWith("{") || !s.endsWith("}"))
    throw new ServeGenError(`invalid PDF dict ${JSON.stringify(abbrev(s))}: missing braces`);
  const body = s.slice(1, -1).trim();
  if (body === "") throw new ServeGenError("invalid PDF dict: empty");
  const out = new Map<number, number>();
  for (const rawPiece of body.split(",")) {
    const piece = rawPiece.trim();
    if (piece === "") continue;
    const colon = piece.indexOf(":");
    if (colon === -1) throw new ServeGenError(`invalid PDF entry ${JSON.stringify(abbrev(piece))}: missing ':'`);
    const keyText = piece.slice(0, colon).trim();
    const valueText = piece.slice(colon + 1).trim();
    const key = parseGoFloat(keyText);
    if (key === null || !Number.isFinite(key))
      throw new ServeGenError(`invalid PDF key ${JSON.stringify(abbrev(keyText))}`);
    const value = parseGoFloat(valueText);
    if (value === null) throw new ServeGenError(`invalid PDF value ${JSON.stringify(abbrev(valueText))}`);
    out.set(Math.trunc(key) + 0, value);
  }
  return out;
}

function abbrev(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

function pdfParams(pdf: Map<number, number>): Record<string, number> {
  const params: Record<string, number> = {};
  for (const [bin, weight] of pdf) params[String(bin)] = weight;
  return params;
}

interface PeakRow {
  rate: number;
  cv: number;
  pattern: string;
}

function readPeakRow(path: string, spanStart: number, spanEnd: number, logger?: Logger): PeakRow | null {
  const text = readTextFile(path);
  let best: PeakRow | null = null;
  let skipped = 0;
  try {
    for (const rec of readCsv(text)) {
      const f = rec.fields;
      const start = f.length >= 4 ? parseGoFloat(f[0]!.trim()) : null;
      const rate = f.length >= 4 ? parseGoFloat(f[1]!.trim()) : null;
      const cv = f.length >= 4 ? parseGoFloat(f[2]!.trim()) : null;
      if (start === null || rate === null || cv === null) {
        skipped++;
        continue;
      }
      if (!inSpan(start, spanStart, spanEnd)) continue;
      if (best === null || rate > best.rate) best = { rate, cv, pattern: f[3]!.trim() };
    }
  } catch (err) {
    if (err instanceof CsvError) throw new ServeGenError(`reading trace CSV: ${path}: ${err.message}`);
    throw err;
  }
  if (skipped > 0) logger?.warn(`servegen: skipped ${skipped} malformed or header row(s) in ${path}`);
  return best;
}

function firstWindow(
  path: string,
  spanStart: number,
  spanEnd: number,
  logger?: Logger,
): { input: string; output: string } {
  const text = readTextFile(path);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ServeGenError(`parsing dataset ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new ServeGenError(`parsing dataset ${path}: expected a JSON object of windows`);
  }
  const windows = data as Record<string, unknown>;
  for (const key of Object.keys(windows).sort(byString)) {
    const start = parseGoFloat(key);
    if (start === null) {
      logger?.warn(`servegen: skipping non-numeric window key ${JSON.stringify(key)} in ${path}`);
      continue;
    }
    if (!inSpan(start, spanStart, spanEnd)) continue;
    const w = windows[key];
    if (w === null || typeof w !== "object") continue;
    const input = (w as Record<string, unknown>)["input_tokens"];
    const output = (w as Record<string, unknown>)["output_tokens"];
    if (typeof input === "string" && typeof output === "string" && input !== "" && output !== "")
      return { input, output };
  }
  throw new ServeGenError("no valid PDF windows found in dataset");
}

/** Loads the clients of a ServeGen directory. Span 0 = unset. Throws ServeGenError. */
export function loadServeGenClients(dir: string, spanStart = 0, spanEnd = 0, logger?: Logger): ClientSpec[] {
  try {
    const files = listDirectory(dir)
      .filter((name) => CHUNK_TRACE.test(name))
      .sort(byString);
    if (files.length === 0) throw new ServeGenError(`no chunk-*-trace.csv files found in ${dir}`);
    const clients: ClientSpec[] = [];
    for (const name of files) {
      const id = CHUNK_TRACE.exec(name)![1]!;
      const peak = readPeakRow(join(dir, name), spanStart, spanEnd, logger);
      if (peak === null || !(peak.rate > 0)) continue;
      const window = firstWindow(join(dir, `chunk-${id}-dataset.json`), spanStart, spanEnd, logger);
      const pattern = peak.pattern.toLowerCase();
      const arrival: ArrivalSpec =
        pattern === "gamma" || pattern === "weibull" ? { process: pattern, cv: peak.cv } : { process: "poisson" };
      clients.push(
        makeClient({
          id: `servegen-chunk-${id}`,
          tenant_id: `chunk-${id}`,
          rate_fraction: peak.rate,
          arrival,
          input_distribution: { type: "empirical", params: pdfParams(parsePdfDict(window.input)), file: "" },
          output_distribution: { type: "empirical", params: pdfParams(parsePdfDict(window.output)), file: "" },
        }),
      );
    }
    if (clients.length === 0) throw new ServeGenError(`no valid chunks found in ${dir}`);
    return clients;
  } catch (err) {
    if (err instanceof FileReadError) throw new ServeGenError(err.message);
    throw err;
  }
}

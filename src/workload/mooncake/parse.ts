// Mooncake-style JSONL (docs/traces.md "Mooncake traces"): one request per line,
// {"timestamp": ms, "input_length": N, "output_length": M, "hash_ids": [..]}, with the spellings
// created_time, input_tokens and output_tokens, and optional session_id and turn. Every malformed
// line is reported as FILE:LINE: what is wrong; nothing is kept from a file with one.

import { UserError } from "../../util/errors.js";
import { grownFloat64, grownInt32 } from "../../core/typedArrays.js";
import { MAX_TOKENS_PER_BUFFER } from "../gen/tokens.js";
import type { MooncakeTrace } from "./trace.js";

/** Malformed lines listed before the rest are only counted. */
const MAX_REPORTED = 20;

/** Thrown for one malformed line: the text after `FILE:LINE: `. */
class LineError extends Error {}

/** Growable columns of the trace being read. */
class Columns {
  n = 0;
  nIds = 0;
  ts = new Float64Array(1024);
  input = new Int32Array(1024);
  output = new Int32Array(1024);
  idStart = new Int32Array(1025);
  ids = new Float64Array(16384);
  line = new Int32Array(1024);
  session: string[] = [];
  turn = new Int32Array(1024);
  anySession = false;
  anyTurn = false;

  add(r: LineRecord, lineNo: number): void {
    if (this.n === this.ts.length) this.grow(this.n * 2);
    const need = this.nIds + r.ids.length;
    if (need > this.ids.length) this.ids = grownFloat64(this.ids, Math.max(need, this.ids.length * 2));
    const i = this.n++;
    this.ts[i] = r.ts;
    this.input[i] = r.input;
    this.output[i] = r.output;
    this.line[i] = lineNo;
    this.idStart[i] = this.nIds;
    for (const id of r.ids) this.ids[this.nIds++] = id;
    this.idStart[i + 1] = this.nIds;
    this.session.push(r.session);
    this.turn[i] = r.turn;
    if (r.session !== "") this.anySession = true;
    if (r.hasTurn) this.anyTurn = true;
  }

  private grow(cap: number): void {
    this.ts = grownFloat64(this.ts, cap);
    this.input = grownInt32(this.input, cap);
    this.output = grownInt32(this.output, cap);
    this.idStart = grownInt32(this.idStart, cap + 1);
    this.line = grownInt32(this.line, cap);
    this.turn = grownInt32(this.turn, cap);
  }

  trace(file: string, blockSize: number): MooncakeTrace {
    const n = this.n;
    // Views, not copies: a million-line trace holds tens of millions of ids.
    return {
      file,
      count: n,
      blockSize,
      timestampMs: this.ts.subarray(0, n),
      inputLen: this.input.subarray(0, n),
      outputLen: this.output.subarray(0, n),
      idStart: this.idStart.subarray(0, n + 1),
      ids: this.ids.subarray(0, this.nIds),
      line: this.line.subarray(0, n),
      session: this.anySession ? this.session : null,
      turn: this.anyTurn ? this.turn.subarray(0, n) : null,
    };
  }
}

interface LineRecord {
  ts: number;
  input: number;
  output: number;
  ids: readonly number[];
  session: string;
  turn: number;
  hasTurn: boolean;
}

/** The one value among spellings `names` (absent: undefined; two given: an error). */
function oneOf(o: Record<string, unknown>, names: readonly string[]): { name: string; value: unknown } | undefined {
  let found: { name: string; value: unknown } | undefined;
  for (const name of names) {
    if (!(name in o)) continue;
    if (found !== undefined) throw new LineError(`both ${found.name} and ${name} given; use one`);
    found = { name, value: o[name] };
  }
  return found;
}

function count(o: Record<string, unknown>, names: readonly string[]): number {
  const f = oneOf(o, names);
  if (f === undefined) throw new LineError(`missing ${names.join(" or ")}`);
  const v = f.value;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
    throw new LineError(`${f.name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

function timestamp(o: Record<string, unknown>): number {
  const f = oneOf(o, ["timestamp", "created_time"]);
  if (f === undefined) throw new LineError("missing timestamp or created_time");
  const v = f.value;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
    throw new LineError(`${f.name} must be a non-negative number (milliseconds), got ${JSON.stringify(v)}`);
  return v;
}

function hashIds(o: Record<string, unknown>, input: number, blockSize: number): readonly number[] {
  const v = o["hash_ids"];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new LineError(`hash_ids must be a list of non-negative integers, got ${JSON.stringify(v)}`);
  for (const id of v) {
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0)
      throw new LineError(`hash_ids: ${JSON.stringify(id)} is not a non-negative integer`);
  }
  const want = Math.ceil(input / blockSize);
  if (v.length > 0 && v.length !== want) {
    throw new LineError(
      `${v.length} hash_ids for ${input} input tokens; at trace block size ${blockSize} they need ${want} (is the trace block size right?)`,
    );
  }
  return v as number[];
}

function session(o: Record<string, unknown>): string {
  const v = o["session_id"];
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return String(v);
  throw new LineError(`session_id must be a string or an integer, got ${JSON.stringify(v)}`);
}

function parseLine(text: string, blockSize: number): LineRecord {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch (e) {
    throw new LineError(`not valid JSON (${(e as Error).message.split("\n")[0]})`);
  }
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw new LineError("not a JSON object");
  const rec = o as Record<string, unknown>;
  const ts = timestamp(rec);
  const input = count(rec, ["input_length", "input_tokens"]);
  const output = count(rec, ["output_length", "output_tokens"]);
  if (input + output > MAX_TOKENS_PER_BUFFER)
    throw new LineError(`${input + output} tokens; at most ${MAX_TOKENS_PER_BUFFER} are supported`);
  const ids = hashIds(rec, input, blockSize);
  const t = rec["turn"];
  const hasTurn = t !== undefined && t !== null;
  if (hasTurn && (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t > 2 ** 31 - 1)) {
    throw new LineError(`turn must be a non-negative integer, got ${JSON.stringify(t)}`);
  }
  return { ts, input, output, ids, session: session(rec), turn: hasTurn ? (t as number) : 0, hasTurn };
}

/** Parses JSONL text; blank lines are skipped. Throws one UserError listing the malformed lines. */
export function parseMooncake(text: string, file: string, blockSize: number): MooncakeTrace {
  const cols = new Columns();
  const bad: string[] = [];
  let badCount = 0;
  let lineNo = 0;
  for (let at = 0; at < text.length;) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(at, end).trim();
    at = end + 1;
    if (line === "") continue;
    try {
      const r = parseLine(line, blockSize);
      if (badCount === 0) cols.add(r, lineNo);
    } catch (e) {
      if (!(e instanceof LineError)) throw e;
      if (++badCount <= MAX_REPORTED) bad.push(`${file}:${lineNo}: ${e.message}`);
    }
  }
  if (badCount > MAX_REPORTED) bad.push(`${file}: ${badCount - MAX_REPORTED} more malformed lines`);
  if (bad.length > 0) throw new UserError(bad.join("\n"));
  if (cols.n === 0) throw new UserError(`${file}: no requests (the file has no JSON lines)`);
  return cols.trace(file, blockSize);
}

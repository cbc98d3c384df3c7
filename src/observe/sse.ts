// Reading OpenAI-compatible responses (docs/observe.md "What is recorded"): server-sent events
// of a streamed response, line by line as bytes arrive, and the JSON body of a plain one.

export interface ResponseFields {
  /** `usage.prompt_tokens` of the last usage object; 0 = none. */
  promptTokens: number;
  /** `usage.completion_tokens` of the last usage object; 0 = none. */
  completionTokens: number;
  /** The last non-empty `choices[0].finish_reason`. */
  finishReason: string;
  /** An error object in the response ("" = none). */
  error: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function errorText(obj: Record<string, unknown>): string {
  const e = obj["error"];
  if (isRecord(e)) return typeof e["message"] === "string" ? e["message"] : JSON.stringify(e);
  if (typeof e === "string") return e;
  if (obj["object"] === "error") return typeof obj["message"] === "string" ? obj["message"] : JSON.stringify(obj);
  return "";
}

/** Folds one parsed response object (a chunk, or a whole body) into `into`. */
export function applyResponseObject(value: unknown, into: ResponseFields): void {
  if (!isRecord(value)) {
    into.error ||= `unexpected JSON ${JSON.stringify(value).slice(0, 200)}`;
    return;
  }
  const err = errorText(value);
  if (err !== "") into.error ||= err;
  const usage = value["usage"];
  if (isRecord(usage)) {
    const p = usage["prompt_tokens"];
    const c = usage["completion_tokens"];
    into.promptTokens = typeof p === "number" && Number.isFinite(p) && p >= 0 ? Math.trunc(p) : 0;
    into.completionTokens = typeof c === "number" && Number.isFinite(c) && c >= 0 ? Math.trunc(c) : 0;
  }
  const choices = value["choices"];
  if (Array.isArray(choices) && choices.length > 0 && isRecord(choices[0])) {
    const fr = choices[0]["finish_reason"];
    if (typeof fr === "string" && fr !== "") into.finishReason = fr;
  }
}

export function emptyFields(): ResponseFields {
  return { promptTokens: 0, completionTokens: 0, finishReason: "", error: "" };
}

/**
 * Accumulates a `text/event-stream` body. Every `data:` line before `data: [DONE]` is a chunk,
 * stamped with the arrival time of the bytes that completed it.
 */
export class SseAccumulator {
  readonly fields: ResponseFields = emptyFields();
  numChunks = 0;
  firstUs = 0;
  lastUs = 0;
  done = false;
  /** Arrival time of every chunk (only when recording chunk times). */
  readonly chunkTimesUs: number[] = [];
  private buffer = "";

  constructor(private readonly recordChunks: boolean) {}

  /** Feeds decoded text that arrived at `atUs`. */
  feed(text: string, atUs: number): void {
    this.buffer += text;
    let nl = this.buffer.indexOf("\n");
    while (nl >= 0) {
      this.line(this.buffer.slice(0, nl), atUs);
      this.buffer = this.buffer.slice(nl + 1);
      nl = this.buffer.indexOf("\n");
    }
  }

  /** End of the body: a last line without a newline still counts. */
  finish(atUs: number): void {
    if (this.buffer !== "") this.line(this.buffer, atUs);
    this.buffer = "";
  }

  private line(raw: string, atUs: number): void {
    if (this.done) return;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (!line.startsWith("data:")) return; // comments, event names, blank separators
    const payload = line.slice(5).trim();
    if (payload === "[DONE]") {
      this.done = true;
      return;
    }
    if (payload === "") return;
    this.numChunks++;
    if (this.numChunks === 1) this.firstUs = atUs;
    this.lastUs = atUs;
    if (this.recordChunks) this.chunkTimesUs.push(atUs);
    let value: unknown;
    try {
      value = JSON.parse(payload);
    } catch (e) {
      this.fields.error ||= `invalid JSON in stream chunk ${this.numChunks}: ${(e as Error).message}`;
      return;
    }
    applyResponseObject(value, this.fields);
  }
}

/** Fields of a non-streamed JSON body; a body that is not JSON sets `error`. */
export function parseJsonBody(text: string): ResponseFields {
  const out = emptyFields();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    out.error = `invalid JSON response: ${(e as Error).message}`;
    return out;
  }
  applyResponseObject(value, out);
  return out;
}

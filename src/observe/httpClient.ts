// One timed HTTP POST to an OpenAI-compatible server (docs/observe.md "What is recorded"),
// on node:http / node:https so that every chunk is stamped as its bytes arrive.

import http from "node:http";
import https from "node:https";
import { nowUs } from "./clock.js";
import { emptyFields, parseJsonBody, SseAccumulator, type ResponseFields } from "./sse.js";

export type RequestStatus = "ok" | "error" | "timeout";

export interface PostSpec {
  url: URL;
  headers: Record<string, string>;
  body: string;
  streaming: boolean;
  /** Keep the arrival time of every chunk (streaming only). */
  recordChunks: boolean;
  timeoutMs: number;
  agent: http.Agent;
  /** Cancels the request (recorded as an error "cancelled"). */
  signal?: AbortSignal;
}

export interface PostOutcome extends ResponseFields {
  status: RequestStatus;
  errorMessage: string;
  sendTimeUs: number;
  firstChunkTimeUs: number;
  lastChunkTimeUs: number;
  numChunks: number;
  chunkTimesUs: number[];
}

/** Longest error text kept from a response body. */
const MAX_ERROR_BODY = 1000;

function oneLine(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > MAX_ERROR_BODY ? t.slice(0, MAX_ERROR_BODY) + "…" : t;
}

/** A keep-alive agent for the server's scheme (connections are reused between requests). */
export function createAgent(url: URL): http.Agent {
  const opts = { keepAlive: true, maxSockets: Infinity, scheduling: "fifo" as const };
  return url.protocol === "https:" ? new https.Agent(opts) : new http.Agent(opts);
}

/** Ends the request with a status and an error message (empty when ok). */
type Settle = (status: RequestStatus, message: string) => void;
type Fail = (err: unknown) => void;

/** Sends one request and resolves with its timings; never rejects. */
export function postCompletion(spec: PostSpec): Promise<PostOutcome> {
  return new Promise((resolve) => {
    const out = emptyOutcome();
    const sse = spec.streaming ? new SseAccumulator(spec.recordChunks) : null;
    const ac = new AbortController();
    let timedOut = false;
    let cancelled = false;
    let settled = false;

    // Only the first outcome counts: an abort also fires the request's error and close events.
    const settle: Settle = (status, message) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onCancel);
      if (sse !== null) copyStreamFields(sse, out);
      out.status = status;
      out.errorMessage = message;
      resolve(out);
    };
    const fail: Fail = (err) => {
      if (timedOut) settle("timeout", `timeout after ${spec.timeoutMs / 1000} s`);
      else if (cancelled) settle("error", "cancelled");
      else settle("error", `transport error: ${oneLine(err instanceof Error ? err.message : String(err))}`);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
      fail(new Error("timeout"));
    }, spec.timeoutMs);
    const onCancel = (): void => {
      cancelled = true;
      ac.abort();
      fail(new Error("cancelled"));
    };
    if (spec.signal?.aborted) {
      onCancel();
      return;
    }
    spec.signal?.addEventListener("abort", onCancel, { once: true });

    const req = openRequest(spec, ac.signal, fail);
    if (req === null) return;
    req.on("error", fail);
    req.on("response", (res) => readResponse(res, sse, out, settle, fail));
    out.sendTimeUs = nowUs();
    req.end(spec.body);
  });
}

function emptyOutcome(): PostOutcome {
  return {
    ...emptyFields(),
    status: "ok",
    errorMessage: "",
    sendTimeUs: 0,
    firstChunkTimeUs: 0,
    lastChunkTimeUs: 0,
    numChunks: 0,
    chunkTimesUs: [],
  };
}

/** The timings and fields a stream gathered, also when it was cut short. */
function copyStreamFields(sse: SseAccumulator, out: PostOutcome): void {
  out.numChunks = sse.numChunks;
  out.firstChunkTimeUs = sse.firstUs;
  out.lastChunkTimeUs = sse.lastUs;
  out.chunkTimesUs = sse.chunkTimesUs;
  out.promptTokens = sse.fields.promptTokens;
  out.completionTokens = sse.fields.completionTokens;
  out.finishReason = sse.fields.finishReason;
}

/** The request, not yet sent; null (after `fail`) when it cannot even be created. */
function openRequest(spec: PostSpec, signal: AbortSignal, fail: Fail): http.ClientRequest | null {
  try {
    const mod = spec.url.protocol === "https:" ? https : http;
    return mod.request(spec.url, {
      method: "POST",
      headers: { ...spec.headers, "content-length": String(Buffer.byteLength(spec.body)) },
      agent: spec.agent,
      signal,
    });
  } catch (e) {
    fail(e);
    return null;
  }
}

function readResponse(
  res: http.IncomingMessage,
  sse: SseAccumulator | null,
  out: PostOutcome,
  settle: Settle,
  fail: Fail,
): void {
  res.setEncoding("utf8");
  res.on("error", fail);
  res.on("close", () => {
    if (!res.complete) fail(new Error("connection closed before the response ended"));
  });
  const code = res.statusCode ?? 0;
  if (code !== 200) readErrorBody(res, code, settle);
  else if (sse !== null) readEventStream(res, sse, settle);
  else readJsonBody(res, out, settle);
}

function readErrorBody(res: http.IncomingMessage, code: number, settle: Settle): void {
  let text = "";
  res.on("data", (t: string) => {
    if (text.length <= MAX_ERROR_BODY) text += t;
  });
  res.on("end", () => settle("error", `HTTP ${code}: ${oneLine(text)}`.trim()));
}

/** Streaming: every chunk is stamped as it arrives. */
function readEventStream(res: http.IncomingMessage, sse: SseAccumulator, settle: Settle): void {
  res.on("data", (t: string) => sse.feed(t, nowUs()));
  res.on("end", () => {
    sse.finish(nowUs());
    if (sse.fields.error !== "") settle("error", oneLine(sse.fields.error));
    else if (sse.numChunks === 0) settle("error", "the stream ended without any data chunk");
    else settle("ok", "");
  });
}

/** Non-streaming: the whole body counts as one chunk, from its first to its last byte. */
function readJsonBody(res: http.IncomingMessage, out: PostOutcome, settle: Settle): void {
  const parts: string[] = [];
  res.on("data", (t: string) => {
    if (parts.length === 0) out.firstChunkTimeUs = nowUs();
    parts.push(t);
  });
  res.on("end", () => {
    out.lastChunkTimeUs = nowUs();
    if (out.firstChunkTimeUs === 0) out.firstChunkTimeUs = out.lastChunkTimeUs;
    out.numChunks = 1;
    const f = parseJsonBody(parts.join(""));
    out.promptTokens = f.promptTokens;
    out.completionTokens = f.completionTokens;
    out.finishReason = f.finishReason;
    if (f.error !== "") settle("error", oneLine(f.error));
    else settle("ok", "");
  });
}

// Body and headers of one OpenAI-compatible request (docs/observe.md "Requests").

import { vllmPriority } from "./priority.js";

export type ApiFormat = "completions" | "chat";

export const API_FORMATS: readonly ApiFormat[] = ["completions", "chat"];

/** max_tokens when the planned output length is not positive. */
export const DEFAULT_MAX_TOKENS = 2048;
/** max_tokens of completions requests with `--unconstrained-output` (2^31 − 1). */
export const UNCONSTRAINED_MAX_TOKENS = 2147483647;

export interface BodyOptions {
  model: string;
  apiFormat: ApiFormat;
  /** Omit the length limits (chat) or send a huge max_tokens (completions). */
  unconstrainedOutput: boolean;
}

export function endpointPath(format: ApiFormat): string {
  return format === "chat" ? "/v1/chat/completions" : "/v1/completions";
}

export interface BodyInput {
  prompt: string;
  /** Planned output length O. */
  outputLen: number;
  streaming: boolean;
  sloClass: string;
}

/** The JSON body: model, prompt or messages, stream (+ usage), max_tokens = min_tokens = O, priority. */
export function buildBody(req: BodyInput, o: BodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { model: o.model };
  if (o.apiFormat === "chat") body["messages"] = [{ role: "user", content: req.prompt }];
  else body["prompt"] = req.prompt;
  body["stream"] = req.streaming;
  if (req.streaming) body["stream_options"] = { include_usage: true };
  if (!o.unconstrainedOutput) {
    body["max_tokens"] = req.outputLen > 0 ? req.outputLen : DEFAULT_MAX_TOKENS;
    if (req.outputLen > 0) body["min_tokens"] = req.outputLen;
  } else if (o.apiFormat === "completions") {
    body["max_tokens"] = UNCONSTRAINED_MAX_TOKENS;
  }
  if (req.sloClass !== "") body["priority"] = vllmPriority(req.sloClass);
  return body;
}

export interface HeaderInput {
  xRequestId: string;
  apiKey: string;
  sloClass: string;
  tenantId: string;
}

export function buildHeaders(h: HeaderInput): Record<string, string> {
  const out: Record<string, string> = { "content-type": "application/json", "x-request-id": h.xRequestId };
  if (h.apiKey !== "") out["authorization"] = `Bearer ${h.apiKey}`;
  if (h.sloClass !== "") out["x-gateway-inference-objective"] = h.sloClass;
  if (h.tenantId !== "") out["x-gateway-inference-fairness-id"] = h.tenantId;
  return out;
}

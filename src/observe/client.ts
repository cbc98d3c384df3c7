// The server endpoint of `blis observe` with its request settings (docs/observe.md "Requests").

import type http from "node:http";
import { randomUUID } from "node:crypto";
import { UserError } from "../util/errors.js";
import { createAgent, postCompletion, type PostOutcome } from "./httpClient.js";
import { buildBody, buildHeaders, endpointPath, type ApiFormat } from "./requestBody.js";

export interface ClientOptions {
  /** Base URL of the server, e.g. http://localhost:8000 (`/v1/...` is appended). */
  serverUrl: string;
  /** Sent as `model` in every body. */
  model: string;
  apiFormat: ApiFormat;
  /** Bearer token ("" = no Authorization header). */
  apiKey: string;
  unconstrainedOutput: boolean;
  /** Per-request timeout. */
  timeoutMs: number;
}

export interface OutgoingRequest {
  prompt: string;
  outputLen: number;
  streaming: boolean;
  sloClass: string;
  tenantId: string;
  recordChunks: boolean;
}

export interface SentRequest {
  /** The UUID sent as `x-request-id`. */
  xRequestId: string;
  outcome: PostOutcome;
}

/** Parses `--server`: an absolute http(s) URL without query or fragment. */
export function parseServerUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UserError(`--server: ${JSON.stringify(text)} is not a URL (expected e.g. http://localhost:8000)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UserError(
      `--server: ${JSON.stringify(text)} must use http or https, not ${url.protocol.replace(/:$/, "")}`,
    );
  }
  if (url.search !== "" || url.hash !== "")
    throw new UserError(`--server: ${JSON.stringify(text)} must not have a query or fragment`);
  return url;
}

export class ObserveClient {
  readonly endpoint: URL;
  private readonly agent: http.Agent;

  constructor(readonly options: ClientOptions) {
    const base = parseServerUrl(options.serverUrl);
    this.endpoint = new URL(base.href);
    this.endpoint.pathname = base.pathname.replace(/\/+$/, "") + endpointPath(options.apiFormat);
    this.agent = createAgent(this.endpoint);
  }

  /** Sends one request; `timeoutMs` overrides the client's timeout. Never rejects. */
  async send(r: OutgoingRequest, signal?: AbortSignal, timeoutMs?: number): Promise<SentRequest> {
    const xRequestId = randomUUID();
    const body = buildBody(
      { prompt: r.prompt, outputLen: r.outputLen, streaming: r.streaming, sloClass: r.sloClass },
      {
        model: this.options.model,
        apiFormat: this.options.apiFormat,
        unconstrainedOutput: this.options.unconstrainedOutput,
      },
    );
    const headers = buildHeaders({
      xRequestId,
      apiKey: this.options.apiKey,
      sloClass: r.sloClass,
      tenantId: r.tenantId,
    });
    const outcome = await postCompletion({
      url: this.endpoint,
      headers,
      body: JSON.stringify(body),
      streaming: r.streaming,
      recordChunks: r.recordChunks && r.streaming,
      timeoutMs: timeoutMs ?? this.options.timeoutMs,
      agent: this.agent,
      ...(signal !== undefined ? { signal } : {}),
    });
    return { xRequestId, outcome };
  }

  /** Closes the idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

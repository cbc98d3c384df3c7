// A small OpenAI-compatible server with known timings for the observe tests. The first path
// segment of the base URL picks the behaviour:
//   /ok     streamed responses: first token after FIRST_TOKEN_MS, then one every TOKEN_GAP_MS;
//           non-streamed responses arrive after the same total time; prompt_tokens = words
//   /fail   HTTP 503 with a short body
//   /hang   headers never sent (for timeouts)
//   /badjson  a 200 response whose body is not JSON

import http from "node:http";
import type { AddressInfo } from "node:net";

export const FIRST_TOKEN_MS = 40;
export const TOKEN_GAP_MS = 10;

export interface SeenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface FakeServer {
  url: string;
  seen: SeenRequest[];
  /** Most /ok requests in progress at once (the tokens-per-word probe included). */
  maxActive: () => number;
  close(): Promise<void>;
}

function promptOf(body: Record<string, unknown>): string {
  if (typeof body["prompt"] === "string") return body["prompt"];
  const msgs = body["messages"];
  if (Array.isArray(msgs) && msgs.length > 0) {
    const m = msgs[0] as Record<string, unknown>;
    if (typeof m["content"] === "string") return m["content"];
  }
  return "";
}

export async function startFakeServer(): Promise<FakeServer> {
  const seen: SeenRequest[] = [];
  let active = 0;
  let maxActive = 0;
  const open = new Set<http.ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, f: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      f();
    }, ms);
    timers.add(t);
  };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (t: string) => (raw += t));
    req.on("end", () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      const url = req.url ?? "";
      seen.push({ path: url, headers: req.headers, body });
      const mode = url.split("/")[1] ?? "";
      const chat = url.endsWith("/chat/completions");
      if (mode === "fail") {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("  server overloaded\n");
        return;
      }
      if (mode === "hang") {
        open.add(res);
        res.on("close", () => open.delete(res));
        return;
      }
      if (mode === "badjson") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("not json");
        return;
      }
      active++;
      maxActive = Math.max(maxActive, active);
      res.on("close", () => active--);
      const words = promptOf(body)
        .split(" ")
        .filter((w) => w !== "").length;
      const maxTokens = typeof body["max_tokens"] === "number" ? body["max_tokens"] : 16;
      const n = Math.max(1, Math.min(maxTokens, 1000));
      const usage = { prompt_tokens: words, completion_tokens: n, total_tokens: words + n };
      if (body["stream"] !== true) {
        later(maxTokens === 1 ? 0 : FIRST_TOKEN_MS + TOKEN_GAP_MS * (n - 1), () => {
          res.writeHead(200, { "content-type": "application/json" });
          const choice = chat
            ? { index: 0, message: { role: "assistant", content: "x ".repeat(n) }, finish_reason: "length" }
            : { index: 0, text: "x ".repeat(n), finish_reason: "length" };
          res.end(JSON.stringify({ id: "cmpl-1", object: "text_completion", choices: [choice], usage }));
        });
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      open.add(res);
      res.on("close", () => open.delete(res));
      let i = 0;
      const emit = (): void => {
        i++;
        const last = i === n;
        const choice = chat
          ? { index: 0, delta: { content: "x " }, finish_reason: last ? "length" : null }
          : { index: 0, text: "x ", finish_reason: last ? "length" : null };
        res.write(`data: ${JSON.stringify({ id: "cmpl-1", choices: [choice], usage: null })}\n\n`);
        if (!last) {
          later(TOKEN_GAP_MS, emit);
          return;
        }
        const usageChunk =
          body["stream_options"] !== undefined
            ? `data: ${JSON.stringify({ id: "cmpl-1", choices: [], usage })}\n\n`
            : "";
        res.end(`${usageChunk}data: [DONE]\n\n`);
      };
      later(FIRST_TOKEN_MS, emit);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    maxActive: () => maxActive,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

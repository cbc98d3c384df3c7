// blis observe as a library, against a local server with known token timings.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { observe, type ObserveOptions } from "../../src/observe/index.js";
import { ArrayRequestSource, makeRequest, type WorkloadRequest } from "../../src/workload/index.js";
import { FIRST_TOKEN_MS, startFakeServer, type FakeServer } from "./fakeServer.js";

// Tolerances that hold on a loaded 2-core machine: the server's 40 ms first token and 10 ms
// token gap only ever get slower there.
const TTFT_MS = [FIRST_TOKEN_MS - 5, 250] as const;
const ITL_MS = [8, 60] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: FakeServer;
before(async () => {
  server = await startFakeServer();
});
after(async () => {
  await server.close();
});

/** `n` requests `gapMs` apart, each with `inputLen` input and `outputLen` output tokens. */
function requests(
  n: number,
  gapMs: number,
  inputLen: number,
  outputLen: number,
  extra: (i: number) => Partial<WorkloadRequest> = () => ({}),
): WorkloadRequest[] {
  return Array.from({ length: n }, (_, i) =>
    makeRequest(
      `request_${i}`,
      i * gapMs * 1000,
      Array.from({ length: inputLen }, (_, k) => 13 * i + k),
      Array.from({ length: outputLen }, () => 7),
      extra(i),
    ),
  );
}

function options(route: string, over: Partial<ObserveOptions> = {}): ObserveOptions {
  return {
    serverUrl: `${server.url}/${route}`,
    model: "test-model",
    apiFormat: "completions",
    apiKey: "",
    unconstrainedOutput: false,
    timeoutMs: 10_000,
    streaming: true,
    maxConcurrency: 256,
    warmupRequests: 0,
    recordItl: false,
    ...over,
  };
}

function ms(us: number): number {
  return us / 1000;
}

test("streamed requests: paced sends, TTFT and ITL of the server, warm-up rows left out, chunk times", async () => {
  const reqs = requests(10, 15, 20, 8, (i) => (i % 2 === 0 ? { sloClass: "critical", tenantId: "tenant-a" } : {}));
  const before = server.seen.length;
  const res = await observe(
    new ArrayRequestSource(reqs),
    options("ok", { warmupRequests: 2, recordItl: true, apiKey: "secret" }),
  );
  assert.equal(res.tokensPerWord, 1);
  assert.equal(res.dispatched, 10);
  assert.equal(res.interrupted, false);
  assert.deepEqual(
    res.records.map((r) => r.request_id),
    [2, 3, 4, 5, 6, 7, 8, 9],
  );
  for (const r of res.records) {
    const where = `request ${r.request_id}`;
    assert.equal(r.status, "ok", where);
    assert.equal(r.error_message, "");
    assert.equal(r.finish_reason, "length");
    assert.equal(r.streaming, true);
    assert.equal(r.input_tokens, 20);
    assert.equal(r.server_input_tokens, 20, "one word per token at 1 token per word");
    assert.equal(r.output_tokens, 8);
    assert.equal(r.num_chunks, 9, "8 token chunks and the usage chunk");
    assert.equal(r.arrival_time_us, r.request_id * 15_000);
    assert.ok(r.send_time_us >= res.startUs + r.arrival_time_us - 2000, `${where}: sent before its arrival`);
    assert.ok(r.send_time_us > 1.5e15, "absolute epoch µs");
    const ttft = ms(r.first_chunk_time_us - r.send_time_us);
    assert.ok(ttft >= TTFT_MS[0] && ttft <= TTFT_MS[1], `${where}: TTFT ${ttft} ms`);
    const itl = ms(r.last_chunk_time_us - r.first_chunk_time_us) / (r.output_tokens - 1);
    assert.ok(itl >= ITL_MS[0] && itl <= ITL_MS[1], `${where}: ITL ${itl} ms`);
    assert.match(r.x_request_id, UUID);
    assert.equal(r.slo_class, r.request_id % 2 === 0 ? "critical" : "");
    assert.equal(r.tenant_id, r.request_id % 2 === 0 ? "tenant-a" : "");
    assert.equal(r.vllm_priority, 0);
  }
  // Chunk times: 9 per recorded request, the first equal to the first chunk time.
  assert.equal(res.itl.length, 8 * 9);
  for (const r of res.records) {
    const rows = res.itl.filter((x) => x.requestId === r.request_id);
    assert.deepEqual(
      rows.map((x) => x.chunkIndex),
      [0, 1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.equal(rows[0]!.timestampUs, r.first_chunk_time_us);
    assert.equal(rows[8]!.timestampUs, r.last_chunk_time_us);
  }

  // What the server saw: the probe, then the 10 requests.
  const seen = server.seen.slice(before);
  assert.equal(seen.length, 11);
  assert.equal(seen[0]!.body["max_tokens"], 1, "the tokens-per-word probe comes first");
  assert.equal((seen[0]!.body["prompt"] as string).split(" ").length, 100);
  const sent = seen.slice(1);
  for (const s of sent) {
    assert.equal(s.path, "/ok/v1/completions");
    assert.equal(s.body["model"], "test-model");
    assert.equal(s.body["stream"], true);
    assert.deepEqual(s.body["stream_options"], { include_usage: true });
    assert.equal(s.body["max_tokens"], 8);
    assert.equal(s.body["min_tokens"], 8);
    assert.equal((s.body["prompt"] as string).split(" ").length, 20);
    assert.equal(s.headers["authorization"], "Bearer secret");
    assert.match(String(s.headers["x-request-id"]), UUID);
  }
  const critical = sent.filter((s) => s.headers["x-gateway-inference-objective"] === "critical");
  assert.equal(critical.length, 5);
  for (const s of critical) {
    assert.equal(s.headers["x-gateway-inference-fairness-id"], "tenant-a");
    assert.equal(s.body["priority"], 0);
  }
  for (const s of sent.filter((x) => x.headers["x-gateway-inference-objective"] === undefined)) {
    assert.equal(s.headers["x-gateway-inference-fairness-id"], undefined);
    assert.equal(s.body["priority"], undefined);
  }
  // The recorded x-request-ids are the ones sent; the prompts repeat the token IDs' words.
  const ids = new Set(sent.map((s) => String(s.headers["x-request-id"])));
  for (const r of res.records) assert.ok(ids.has(r.x_request_id));
  const prompts = sent.map((s) => s.body["prompt"] as string);
  assert.equal(new Set(prompts).size, 10, "different token IDs, different prompts");
});

test("non-streamed requests: one chunk, first chunk at the first body byte", async () => {
  const res = await observe(
    new ArrayRequestSource(requests(3, 5, 10, 6)),
    options("ok", { streaming: false, tokensPerWord: 1 }),
  );
  assert.equal(res.records.length, 3);
  for (const r of res.records) {
    assert.equal(r.status, "ok");
    assert.equal(r.streaming, false);
    assert.equal(r.num_chunks, 1);
    assert.equal(r.output_tokens, 6);
    assert.equal(r.server_input_tokens, 10);
    const ttft = ms(r.first_chunk_time_us - r.send_time_us);
    assert.ok(ttft >= FIRST_TOKEN_MS + 40 && ttft <= 400, `TTFT ${ttft} ms covers the whole generation`);
    assert.ok(r.last_chunk_time_us >= r.first_chunk_time_us);
  }
});

test("chat format: /v1/chat/completions with one user message", async () => {
  const before = server.seen.length;
  const res = await observe(
    new ArrayRequestSource(requests(2, 5, 12, 4)),
    options("ok", { apiFormat: "chat", tokensPerWord: 1 }),
  );
  assert.deepEqual(
    res.records.map((r) => [r.status, r.output_tokens, r.num_chunks]),
    [
      ["ok", 4, 5],
      ["ok", 4, 5],
    ],
  );
  const seen = server.seen.slice(before);
  assert.equal(seen.length, 2, "no probe when tokensPerWord is given");
  for (const s of seen) {
    assert.equal(s.path, "/ok/v1/chat/completions");
    const msgs = s.body["messages"] as { role: string; content: string }[];
    assert.equal(msgs.length, 1);
    assert.equal(msgs[0]!.role, "user");
    assert.equal(msgs[0]!.content.split(" ").length, 12);
  }
});

test("--max-concurrency bounds the requests in flight", async () => {
  const srv = await startFakeServer();
  try {
    const res = await observe(new ArrayRequestSource(requests(6, 0, 5, 3)), {
      ...options("ok"),
      serverUrl: `${srv.url}/ok`,
      maxConcurrency: 2,
      tokensPerWord: 1,
    });
    assert.equal(res.records.filter((r) => r.status === "ok").length, 6);
    assert.equal(srv.maxActive(), 2);
  } finally {
    await srv.close();
  }
});

test("errors: HTTP 503, a body that is not JSON, a refused connection; the probe falls back to 1 token per word", async () => {
  const fail = await observe(new ArrayRequestSource(requests(2, 0, 5, 3)), options("fail"));
  assert.equal(fail.tokensPerWord, 1);
  for (const r of fail.records) {
    assert.equal(r.status, "error");
    assert.equal(r.error_message, "HTTP 503: server overloaded");
    assert.equal(r.output_tokens, 0);
    assert.ok(r.send_time_us > 0);
  }
  const bad = await observe(
    new ArrayRequestSource(requests(1, 0, 5, 3)),
    options("badjson", { streaming: false, tokensPerWord: 1 }),
  );
  assert.equal(bad.records[0]!.status, "error");
  assert.match(bad.records[0]!.error_message, /^invalid JSON response/);
  const srv = await startFakeServer();
  const closedUrl = srv.url;
  await srv.close();
  const refused = await observe(new ArrayRequestSource(requests(1, 0, 5, 3)), {
    ...options("ok"),
    serverUrl: closedUrl,
    tokensPerWord: 1,
  });
  assert.equal(refused.records[0]!.status, "error");
  assert.match(refused.records[0]!.error_message, /^transport error: /);
});

test("a request that hangs past the timeout is recorded as timeout", async () => {
  const t0 = Date.now();
  const res = await observe(
    new ArrayRequestSource(requests(2, 0, 5, 3)),
    options("hang", { timeoutMs: 300, tokensPerWord: 1 }),
  );
  assert.ok(Date.now() - t0 < 5000, "the timeout cut the requests short");
  for (const r of res.records) {
    assert.equal(r.status, "timeout");
    assert.equal(r.error_message, "timeout after 0.3 s");
    assert.equal(r.num_chunks, 0);
  }
});

test("aborting stops dispatching and cancels the requests in flight", async () => {
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 150);
  const res = await observe(
    new ArrayRequestSource(requests(20, 100, 5, 3)),
    options("hang", { tokensPerWord: 1, signal: stop.signal }),
  );
  assert.equal(res.interrupted, true);
  assert.ok(res.dispatched >= 1 && res.dispatched <= 3, `dispatched ${res.dispatched}`);
  for (const r of res.records) assert.deepEqual([r.status, r.error_message], ["error", "cancelled"]);
});

// The pieces of blis observe that need no server: prompts, bodies, SSE parsing, summary, files.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  buildBody,
  buildHeaders,
  defaultItlPath,
  formatItlCsv,
  parseJsonBody,
  promptFromTokens,
  SseAccumulator,
  summarizeObserved,
  VOCABULARY,
  vllmPriority,
  wordCountFor,
} from "../../src/observe/index.js";
import { parseDurationMs } from "../../src/cli/observeCommand.js";
import { emptyTraceRecord, type TraceRecord } from "../../src/workload/index.js";

test("vocabulary: 100 distinct words; one word per token ID, scaled by tokens per word", () => {
  assert.equal(VOCABULARY.length, 100);
  assert.equal(new Set(VOCABULARY).size, 100);
  for (const w of VOCABULARY) assert.match(w, /^[a-z]+$/);
  const tokens = Int32Array.from([0, 1, 102, -1, 5, 6]);
  assert.equal(promptFromTokens(tokens, 4, 1), [VOCABULARY[0], VOCABULARY[1], VOCABULARY[2], VOCABULARY[99]].join(" "));
  assert.equal(
    promptFromTokens(tokens, 4, 2),
    [VOCABULARY[0], VOCABULARY[1]].join(" "),
    "4 tokens / 2 tokens per word",
  );
  assert.equal(wordCountFor(300, 1.5), 200);
  assert.equal(wordCountFor(0, 1), 1, "never an empty prompt");
  assert.equal(promptFromTokens(new Int32Array(0), 0, 1), VOCABULARY[0]);
});

test("vLLM priority of SLO classes: lower is more urgent", () => {
  assert.deepEqual(
    ["critical", "standard", "", "gold", "batch", "sheddable", "background"].map(vllmPriority),
    [0, 1, 1, 1, 5, 6, 7],
  );
});

test("request body and headers", () => {
  const base = { model: "m", apiFormat: "completions" as const, unconstrainedOutput: false };
  assert.deepEqual(buildBody({ prompt: "a b", outputLen: 5, streaming: true, sloClass: "" }, base), {
    model: "m",
    prompt: "a b",
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 5,
    min_tokens: 5,
  });
  assert.deepEqual(buildBody({ prompt: "a", outputLen: 0, streaming: false, sloClass: "batch" }, base), {
    model: "m",
    prompt: "a",
    stream: false,
    max_tokens: 2048,
    priority: 5,
  });
  assert.equal(
    buildBody({ prompt: "a", outputLen: 5, streaming: false, sloClass: "" }, { ...base, unconstrainedOutput: true })[
      "max_tokens"
    ],
    2147483647,
  );
  const chat = buildBody(
    { prompt: "a", outputLen: 5, streaming: false, sloClass: "" },
    { ...base, apiFormat: "chat", unconstrainedOutput: true },
  );
  assert.deepEqual(chat, { model: "m", messages: [{ role: "user", content: "a" }], stream: false });
  assert.deepEqual(buildHeaders({ xRequestId: "id", apiKey: "", sloClass: "", tenantId: "" }), {
    "content-type": "application/json",
    "x-request-id": "id",
  });
  assert.deepEqual(buildHeaders({ xRequestId: "id", apiKey: "k", sloClass: "critical", tenantId: "t" }), {
    "content-type": "application/json",
    "x-request-id": "id",
    authorization: "Bearer k",
    "x-gateway-inference-objective": "critical",
    "x-gateway-inference-fairness-id": "t",
  });
});

test("SSE: lines split across reads, CRLF, comments; chunks before [DONE]; usage of the last usage object", () => {
  const s = new SseAccumulator(true);
  s.feed(': keep-alive\r\n\r\ndata: {"choices":[{"text":"a","finish_reason":null}]}\r\n\r\nda', 100);
  s.feed('ta: {"choices":[{"text":"b","finish_reason":"stop"}],"usage":null}\n\n', 200);
  s.feed('data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2}}\n\ndata: [DONE]\n\n', 300);
  s.feed('data: {"late":true}\n', 400);
  s.finish(500);
  assert.deepEqual([s.numChunks, s.firstUs, s.lastUs, s.done], [3, 100, 300, true]);
  assert.deepEqual(s.chunkTimesUs, [100, 200, 300]);
  assert.deepEqual(s.fields, { promptTokens: 12, completionTokens: 2, finishReason: "stop", error: "" });

  const bad = new SseAccumulator(false);
  bad.feed("data: {oops\n", 1);
  bad.feed('data: {"error":{"message":"boom"}}', 2);
  bad.finish(3);
  assert.equal(bad.numChunks, 2);
  assert.match(bad.fields.error, /^invalid JSON in stream chunk 1/);
  assert.deepEqual(bad.chunkTimesUs, [], "chunk times only when asked");

  assert.deepEqual(
    parseJsonBody('{"choices":[{"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}'),
    {
      promptTokens: 3,
      completionTokens: 4,
      finishReason: "length",
      error: "",
    },
  );
  assert.equal(parseJsonBody('{"object":"error","message":"bad model"}').error, "bad model");
  assert.match(parseJsonBody("<html>").error, /^invalid JSON response/);
});

test("summary: ok rows only; TTFT, E2E and per-request ITL in ms; throughput over the observed span", () => {
  const row = (id: number, status: string, send: number, first: number, last: number, out: number): TraceRecord => ({
    ...emptyTraceRecord(),
    request_id: id,
    status,
    streaming: true,
    send_time_us: send,
    first_chunk_time_us: first,
    last_chunk_time_us: last,
    output_tokens: out,
    input_tokens: 10,
  });
  const m = summarizeObserved([
    row(0, "ok", 1_000_000, 1_040_000, 1_130_000, 10),
    row(1, "ok", 1_500_000, 1_560_000, 2_000_000, 5),
    row(2, "error", 1_600_000, 0, 0, 0),
    row(3, "timeout", 1_700_000, 0, 0, 0),
  ]);
  assert.deepEqual([m.completed_requests, m.failed_requests, m.timed_out_requests], [2, 1, 1]);
  assert.equal(m.ttft_mean_ms, 50);
  assert.equal(m.ttft_p50_ms, 50);
  assert.equal(m.e2e_mean_ms, (130 + 500) / 2);
  assert.equal(m.itl_mean_ms, (10 + 110) / 2);
  assert.equal(m.duration_s, 1);
  assert.equal(m.responses_per_sec, 2);
  assert.equal(m.tokens_per_sec, 15);
  assert.equal(m.total_input_tokens, 20);
  const empty = summarizeObserved([]);
  assert.deepEqual([empty.completed_requests, empty.ttft_mean_ms, empty.responses_per_sec], [0, null, 0]);
});

test("ITL CSV and its default path; --prewarm-duration values", () => {
  assert.equal(
    formatItlCsv([{ requestId: 4, chunkIndex: 0, timestampUs: 17 }]),
    "request_id,chunk_index,timestamp_us\n4,0,17\n",
  );
  assert.equal(defaultItlPath("out/trace.csv"), "out/trace.itl.csv");
  assert.equal(defaultItlPath("out/trace.data"), "out/trace.data.itl.csv");
  assert.deepEqual(
    ["0", "90", "1.5", "500ms", "30s", "2m", "1m30s", "1h"].map((t) => parseDurationMs(t, "--x")),
    [0, 90_000, 1500, 500, 30_000, 120_000, 90_000, 3_600_000],
  );
  for (const bad of ["", "-1", "5d", "s", "1m 30s"])
    assert.throws(() => parseDurationMs(bad, "--x"), /is not a duration/);
});

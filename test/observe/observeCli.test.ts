// `blis observe` end to end: flags, the written trace v2 and ITL CSV, the stdout summary, and
// one-line errors for bad flags before anything is sent.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { cli, metricBlocks } from "../helpers/cli.js";
import { loadTraceV2 } from "../../src/workload/index.js";
import { startFakeServer, type FakeServer } from "./fakeServer.js";

let server: FakeServer;
let dir: string;
before(async () => {
  server = await startFakeServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-observe-"));
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Fixed lengths: every prompt `p` tokens, every output `o` tokens. */
function shape(p: number, o: number): string[] {
  return [
    "--prompt-tokens",
    String(p),
    "--prompt-tokens-stdev",
    "0",
    "--prompt-tokens-min",
    "0",
    "--output-tokens",
    String(o),
    "--output-tokens-stdev",
    "0",
    "--output-tokens-min",
    "0",
  ];
}

function out(name: string): string[] {
  return ["--trace-header", path.join(dir, `${name}.yaml`), "--trace-data", path.join(dir, `${name}.csv`)];
}

test("records a trace v2 with warm-up rows left out, an ITL CSV and a summary of the ok rows", async () => {
  const run = await cli([
    "observe",
    "--server",
    `${server.url}/ok`,
    "--model",
    "test-model",
    ...out("basic"),
    "--rate",
    "100",
    "--num-requests",
    "8",
    ...shape(16, 6),
    "--warmup-requests",
    "3",
    "--record-itl",
    "--rtt-ms",
    "1.5",
    "--server-type",
    "test-server",
    "--no-progress",
  ]);
  assert.equal(run.code, 0, run.stderr.join("\n"));
  const trace = loadTraceV2(path.join(dir, "basic.yaml"), path.join(dir, "basic.csv"));
  const h = trace.header;
  assert.equal(h.trace_version, 3);
  assert.equal(h.mode, "real");
  assert.equal(h.time_unit, "us");
  assert.equal(h.warm_up_requests, 3);
  assert.equal(h.workload_seed, 42);
  assert.match(h.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(h.server, {
    type: "test-server",
    model: "test-model",
    tensor_parallel: 0,
    max_num_seqs: 0,
    block_size: 0,
    gpu_memory_utilization: 0,
    max_model_len: 0,
  });
  assert.deepEqual(h.network, { measured_rtt_ms: 1.5 });
  assert.equal(trace.layout, "v3");
  assert.deepEqual(trace.optionalColumns, ["x_request_id"]);
  assert.deepEqual(
    trace.records.map((r) => r.request_id),
    [3, 4, 5, 6, 7],
  );
  for (const r of trace.records) {
    assert.deepEqual(
      [r.status, r.output_tokens, r.server_input_tokens, r.input_tokens, r.num_chunks],
      ["ok", 6, 16, 16, 7],
    );
    // The server waits before its first chunk and between chunks: no measured time can be shorter
    // (how much longer depends on the machine's load, so there is no upper bound).
    const ttft = (r.first_chunk_time_us - r.send_time_us) / 1000;
    assert.ok(ttft >= 35, `TTFT ${ttft} ms`);
    assert.ok(r.last_chunk_time_us > r.first_chunk_time_us, "the last chunk comes after the first");
  }
  const itl = fs.readFileSync(path.join(dir, "basic.itl.csv"), "utf8").trim().split("\n");
  assert.equal(itl[0], "request_id,chunk_index,timestamp_us");
  assert.equal(itl.length, 1 + 5 * 7);
  assert.deepEqual(itl[1]!.split(",").map(Number), [3, 0, trace.records[0]!.first_chunk_time_us]);

  const m = metricBlocks(run.stdout)[0]!;
  assert.equal(m["instance_id"], "observed");
  assert.equal(m["completed_requests"], 5);
  assert.equal(m["failed_requests"], 0);
  assert.equal(m["total_output_tokens"], 30);
  const ttftMean = m["ttft_mean_ms"] as number;
  const itlMean = m["itl_mean_ms"] as number;
  assert.ok(ttftMean >= 35, `TTFT mean ${ttftMean}`);
  assert.ok(itlMean >= 8, `ITL mean ${itlMean}`);
  for (const k of [
    "ttft_p50_ms",
    "ttft_p90_ms",
    "ttft_p99_ms",
    "e2e_mean_ms",
    "e2e_p50_ms",
    "e2e_p90_ms",
    "e2e_p99_ms",
    "itl_p50_ms",
    "itl_p90_ms",
    "itl_p99_ms",
    "responses_per_sec",
    "tokens_per_sec",
  ]) {
    assert.ok((m[k] as number) > 0, k);
  }
  assert.ok(
    run.stderr.some((l) => l.startsWith("observe: 5 requests recorded (3 warm-up)")),
    run.stderr.join("\n"),
  );
});

test("a workload spec with SLO classes: vllm_priority column, gateway headers, spec path in the header", async () => {
  const spec = path.join(dir, "classes.yaml");
  const client = (id: string, cls: string, tenant: string): string =>
    `  - id: ${id}\n    tenant_id: ${tenant}\n    slo_class: ${cls}\n    rate_fraction: 0.5\n    streaming: true\n` +
    `    arrival: {process: constant}\n    input_distribution: {type: constant, params: {value: 10}}\n` +
    `    output_distribution: {type: constant, params: {value: 3}}\n`;
  fs.writeFileSync(
    spec,
    `version: "2"\nseed: 7\naggregate_rate: 200\nnum_requests: 6\nclients:\n${client("a", "critical", "t-a")}${client("b", "batch", "t-b")}`,
  );
  const before = server.seen.length;
  const run = await cli([
    "observe",
    "--server",
    `${server.url}/ok/`,
    "--model",
    "m",
    ...out("classes"),
    "--workload-spec",
    spec,
    "--no-progress",
  ]);
  assert.equal(run.code, 0, run.stderr.join("\n"));
  const header = fs.readFileSync(path.join(dir, "classes.csv"), "utf8").split("\n")[0]!;
  assert.match(header, /^request_id,client_id,tenant_id,slo_class,vllm_priority,session_id,/);
  assert.match(header, /,finish_reason,x_request_id$/);
  const trace = loadTraceV2(path.join(dir, "classes.yaml"), path.join(dir, "classes.csv"));
  assert.equal(trace.header.workload_spec, spec);
  assert.equal(trace.header.workload_seed, undefined, "the spec's own seed is not known here");
  assert.equal(trace.records.length, 6);
  for (const r of trace.records) {
    assert.equal(r.status, "ok");
    assert.equal(r.vllm_priority, r.slo_class === "critical" ? 0 : 5);
    assert.equal(r.tenant_id, r.slo_class === "critical" ? "t-a" : "t-b");
  }
  const sent = server.seen.slice(before + 1);
  assert.equal(sent.length, 6);
  for (const s of sent) {
    assert.equal(s.path, "/ok/v1/completions", "a trailing slash of --server is dropped");
    const cls = s.headers["x-gateway-inference-objective"];
    assert.equal(s.body["priority"], cls === "critical" ? 0 : 5);
    assert.equal(s.headers["x-gateway-inference-fairness-id"], cls === "critical" ? "t-a" : "t-b");
  }
});

test("--replay-trace of an observed trace is paced from its first arrival", async () => {
  const t0 = Date.now();
  const run = await cli([
    "observe",
    "--server",
    `${server.url}/ok`,
    "--model",
    "m",
    ...out("again"),
    "--replay-trace",
    path.join(dir, "classes.yaml"),
    "--replay-trace-data",
    path.join(dir, "classes.csv"),
    "--no-progress",
  ]);
  assert.equal(run.code, 0, run.stderr.join("\n"));
  assert.ok(Date.now() - t0 < 5000);
  const trace = loadTraceV2(path.join(dir, "again.yaml"), path.join(dir, "again.csv"));
  assert.equal(trace.records.length, 6);
  assert.equal(trace.records[0]!.arrival_time_us, 0);
  for (const r of trace.records) {
    assert.equal(r.status, "ok");
    assert.ok(r.arrival_time_us < 1_000_000, `arrival ${r.arrival_time_us}`);
    assert.equal(r.output_tokens, 3);
  }
  assert.equal(trace.header.workload_seed, 42);
});

test("every request failing (errors, timeouts) is exit 1 with one line; the trace still records why", async () => {
  const fail = await cli([
    "observe",
    "--server",
    `${server.url}/fail`,
    "--model",
    "m",
    ...out("fail"),
    "--rate",
    "200",
    "--num-requests",
    "3",
    ...shape(8, 4),
    "--no-streaming",
    "--no-progress",
  ]);
  assert.equal(fail.code, 1, fail.stderr.join("\n"));
  assert.equal(fail.stdout, "");
  assert.equal(
    fail.stderr.at(-1),
    `error: observe: none of the 3 requests succeeded (3 failed, 0 timed out); ${path.join(dir, "fail.csv")} records why (status and error_message columns)`,
  );
  const ft = loadTraceV2(path.join(dir, "fail.yaml"), path.join(dir, "fail.csv"));
  assert.deepEqual(
    ft.records.map((r) => [r.status, r.error_message, r.streaming]),
    Array(3).fill(["error", "HTTP 503: server overloaded", false]),
  );
  assert.ok(
    fail.stderr.some((l) => l.includes("tokens-per-word probe failed")),
    "the failed probe is a warning",
  );

  const hang = await cli([
    "observe",
    "--server",
    `${server.url}/hang`,
    "--model",
    "m",
    ...out("hang"),
    "--rate",
    "200",
    "--num-requests",
    "2",
    ...shape(8, 4),
    "--timeout",
    "0.3",
    "--no-progress",
  ]);
  assert.equal(hang.code, 1, hang.stderr.join("\n"));
  assert.equal(hang.stdout, "");
  assert.match(hang.stderr.at(-1)!, /^error: observe: none of the 2 requests succeeded \(0 failed, 2 timed out\)/);
  const ht = loadTraceV2(path.join(dir, "hang.yaml"), path.join(dir, "hang.csv"));
  assert.deepEqual(
    ht.records.map((r) => r.status),
    ["timeout", "timeout"],
  );
});

test("--prewarm-duration sends unrecorded fixed requests first", async () => {
  const before = server.seen.length;
  const run = await cli([
    "observe",
    "--server",
    `${server.url}/ok`,
    "--model",
    "m",
    ...out("prewarm"),
    "--rate",
    "100",
    "--num-requests",
    "2",
    ...shape(8, 3),
    "--prewarm-duration",
    "200ms",
    "--no-progress",
  ]);
  assert.equal(run.code, 0, run.stderr.join("\n"));
  const warm = server.seen.slice(before).filter((s) => s.body["max_tokens"] === 64);
  assert.ok(warm.length >= 4, `${warm.length} prewarm requests`);
  for (const s of warm) assert.equal(s.body["stream"], false);
  const trace = loadTraceV2(path.join(dir, "prewarm.yaml"), path.join(dir, "prewarm.csv"));
  assert.deepEqual(
    trace.records.map((r) => [r.request_id, r.output_tokens]),
    [
      [0, 3],
      [1, 3],
    ],
  );
  assert.equal(trace.header.warm_up_requests, 0);
});

test("bad flags: one-line errors, exit status 1, nothing sent", async () => {
  const ok = ["--server", `${server.url}/ok`, "--model", "m", ...out("bad"), "--rate", "10", "--num-requests", "2"];
  const without = (flag: string): string[] => {
    const i = ok.indexOf(flag);
    return [...ok.slice(0, i), ...ok.slice(i + 2)];
  };
  const cases: [string[], RegExp][] = [
    [without("--server"), /--server is required/],
    [without("--model"), /--model is required/],
    [without("--trace-header"), /--trace-header is required/],
    [without("--trace-data"), /--trace-data is required/],
    [[...without("--server"), "--server", "not a url"], /--server: "not a url" is not a URL/],
    [[...without("--server"), "--server", "ftp://localhost:21"], /must use http or https/],
    [
      [...without("--trace-data"), "--trace-data", "/proc/self/missing-dir/t.csv"],
      /--trace-data .*cannot create directories in \/proc\/self/,
    ],
    [[...without("--rate"), "--prompt-tokens", "10"], /no workload/],
    [[...ok, "--api-format", "grpc"], /--api-format must be completions or chat/],
    [[...ok, "--max-concurrency", "0"], /--max-concurrency must be an integer >= 1/],
    [[...ok, "--max-concurrency", "many"], /"many" is not an integer/],
    [[...ok, "--warmup-requests", "-1"], /--warmup-requests must be an integer >= 0/],
    [[...ok, "--timeout", "0"], /--timeout must be in/],
    [[...ok, "--rtt-ms", "-2"], /--rtt-ms must be a finite value >= 0/],
    [[...ok, "--prewarm-duration", "5 parsecs"], /--prewarm-duration: "5 parsecs" is not a duration/],
    [[...without("--rate"), "--workload", "chatbot"], /--workload chatbot needs --rate/],
    [[...without("--rate"), "--workload-spec", path.join(dir, "no-such-spec.yaml")], /workload spec/],
    [[...ok, "--log", "loud"], /Invalid log level/],
  ];
  const before = server.seen.length;
  for (const [args, want] of cases) {
    const run = await cli(["observe", ...args]);
    const what = `${args.join(" ")} -> ${run.stderr.join(" | ")}`;
    assert.equal(run.code, 1, what);
    assert.equal(run.stderr.length, 1, what);
    assert.match(run.stderr[0]!, /^error: /, what);
    assert.match(run.stderr[0]!, want, what);
    assert.equal(run.stdout, "", what);
  }
  assert.equal(server.seen.length, before, "no request was sent");
  assert.equal(fs.existsSync(path.join(dir, "bad.csv")), false);
});

test("observe --help lists its flags", async () => {
  const run = await cli(["observe", "--help"]);
  assert.equal(run.code, 0);
  for (const f of [
    "--server",
    "--trace-header",
    "--max-concurrency",
    "--record-itl",
    "--warmup-requests",
    "--rate",
    "--workload-spec",
    "--seed",
  ]) {
    assert.ok(run.stdout.includes(f), f);
  }
});

test("--detectors labels the measured requests; the report file and errors work as on blis run", async () => {
  const report = path.join(dir, "observed-saturation.json");
  const base = [
    "observe",
    "--server",
    `${server.url}/ok`,
    "--model",
    "test-model",
    "--rate",
    "100",
    "--num-requests",
    "12",
    ...shape(16, 6),
  ];
  const run = await cli([...base, ...out("sat"), "--detectors", "composite,threshold", "--saturation-report", report]);
  assert.equal(run.code, 0, run.stderr.join("\n"));
  const block = metricBlocks(run.stdout)[0]!;
  const labels = block["saturation"] as unknown as Record<string, string>;
  assert.deepEqual(Object.keys(labels), ["composite", "threshold"]);
  assert.ok(["STABLE", "BACKLOGGED", "OVERLOADED"].includes(labels["composite"]!));
  assert.equal(labels["threshold"], "STABLE", "the fake server answers in milliseconds");
  const data = JSON.parse(fs.readFileSync(report, "utf8")) as { final: unknown; trace: unknown[] };
  assert.deepEqual(data.final, block["saturation"]);
  assert.equal(data.trace.length, 12 * 2 * 2, "an arrival and a completion per ok row, for each detector");
  const sent = server.seen.length;
  const bad = await cli([...base, ...out("sat-bad"), "--saturation-final-window", "10s"]);
  assert.equal(bad.code, 1);
  assert.deepEqual(bad.stderr, ["error: --saturation-final-window requires --detectors"]);
  assert.equal(server.seen.length, sent, "nothing is sent for a bad flag");
  assert.ok(!fs.existsSync(path.join(dir, "sat-bad.csv")));
});

test("a summary without samples of a latency prints null, not 0", async () => {
  const { summarizeObserved } = await import("../../src/observe/summary.js");
  const m = summarizeObserved([]);
  assert.equal(m.completed_requests, 0);
  for (const k of ["e2e_mean_ms", "ttft_p99_ms", "itl_p50_ms"] as const) assert.equal(m[k], null);
});

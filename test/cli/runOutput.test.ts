// What `blis run` prints when not every request is served, and how its token counts relate
// (docs/behavior.md "The metrics block", "Results file", "Enqueue and unservable requests", C14).

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli as runCli, clusterBlock, metricBlocks, withoutLatencyNote, type CliRun } from "../helpers/cli.js";

/** The CLI with the latency coefficient line dropped from stderr: these tests are about the other lines. */
async function cli(args: string[]): Promise<CliRun> {
  const r = await runCli(args);
  return { ...r, stderr: withoutLatencyNote(r.stderr) };
}

const MODEL = "meta-llama/llama-3.1-8b-instruct";
const M = ["run", "--model", MODEL];
const LATENCIES = ["e2e", "ttft", "itl"].flatMap((k) => ["mean", "p90", "p95", "p99"].map((p) => `${k}_${p}_ms`));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-run-output-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

test("every request unservable: a block with zero counts and null latencies, one warning, n/a in the report", async () => {
  const report = path.join(dir, "dropped.html");
  const res = await cli([
    ...M,
    "--total-kv-blocks",
    "50",
    "--prompt-tokens",
    "2000",
    "--num-requests",
    "5",
    "--report",
    report,
  ]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  assert.equal(metricBlocks(res.stdout).length, 1);
  const b = clusterBlock(res.stdout);
  assert.equal(b["completed_requests"], 0);
  assert.equal(b["injected_requests"], 5);
  assert.equal(b["dropped_unservable"], 5);
  assert.equal(b["total_output_tokens"], 0);
  assert.equal(b["responses_per_sec"], 0);
  for (const k of [...LATENCIES, "scheduling_delay_p99_ms"]) assert.equal(b[k], null, k);
  assert.match(res.stdout, /}\n=== Anomaly Counters ===\n(.*\n){3}Dropped Unservable: 5\n$/);
  assert.deepEqual(
    res.stderr.filter((l) => !l.startsWith("level=info")),
    [
      'level=warn msg="--latency-model: max-model-len 131072 exceeds KV capacity (50 blocks × 16 tokens); capping to 800 tokens"',
      'level=warn msg="no requests completed: all 5 requests were dropped as unservable: 5 exceed the max-model-len ' +
        '(e.g. request_0: prompt 2160 tokens leave no room for output under max-model-len 800)"',
    ],
  );

  const html = fs.readFileSync(report, "utf8");
  for (const label of ["TTFT p50 / p99", "ITL mean / p99", "E2E p50 / p99"]) {
    assert.ok(html.includes(`<div class="k">${label}</div><div class="v">n/a</div>`), `${label} card shows n/a`);
  }
  assert.ok(html.includes("&quot;e2e_mean_ms&quot;: null"), "the report's metric JSON is the printed block");
});

test("nothing completed within the horizon: TTFT is known, E2E and ITL are null, the warning says why", async () => {
  const res = await cli([...M, "--num-requests", "5", "--horizon", "1500000"]);
  assert.equal(res.code, 0);
  const b = clusterBlock(res.stdout);
  assert.equal(b["completed_requests"], 0);
  assert.equal(b["still_running"], 1);
  assert.equal(typeof b["ttft_mean_ms"], "number");
  assert.equal(typeof b["scheduling_delay_p99_ms"], "number");
  for (const k of LATENCIES.filter((x) => !x.startsWith("ttft"))) assert.equal(b[k], null, k);
  assert.deepEqual(res.stderr, [
    'level=warn msg="no requests completed by the horizon (1500000 ticks): 1 still running; a longer --horizon lets them finish"',
  ]);

  const early = await cli([...M, "--num-requests", "5", "--horizon", "5"]);
  assert.equal(clusterBlock(early.stdout)["injected_requests"], 0);
  assert.deepEqual(early.stderr, [
    'level=warn msg="no requests completed: no request arrives before the horizon (5 ticks)"',
  ]);

  const rejected = await cli([...M, "--num-requests", "5", "--admission-policy", "reject-all"]);
  assert.deepEqual(rejected.stderr, [
    'level=warn msg="all 5 requests rejected by admission policy \\"reject-all\\" — no requests completed"',
  ]);
});

test("some requests unservable: one warning with the count and an example; each drop at debug level", async () => {
  const args = [
    ...M,
    "--total-kv-blocks",
    "100",
    "--prompt-tokens",
    "1000",
    "--num-requests",
    "10",
    "--num-instances",
    "2",
  ];
  const res = await cli(args);
  assert.equal(res.code, 0);
  assert.equal(clusterBlock(res.stdout)["dropped_unservable"], 5);
  assert.deepEqual(res.stderr.slice(1), [
    'level=warn msg="5 of 10 requests were dropped as unservable: 5 exceed the max-model-len ' +
      '(e.g. request_0: prompt 1160 + output 751 tokens exceed max-model-len 1600); --log debug lists each"',
  ]);
  const debug = await cli([...args, "--log", "debug"]);
  assert.equal(debug.stderr.filter((l) => l.startsWith("level=debug") && l.includes("as unservable")).length, 5);
  assert.equal(debug.stdout, res.stdout);
});

test("total_output_tokens against the results file's num_decode_tokens", async () => {
  const sums = async (backend: string[]) => {
    const file = path.join(dir, `tokens-${backend.join("")}.json`);
    const res = await cli([...M, ...backend, "--num-requests", "20", "--results-path", file]);
    assert.equal(res.code, 0, res.stderr.join("\n"));
    const r = JSON.parse(fs.readFileSync(file, "utf8")) as {
      total_output_tokens: number;
      completed_requests: number;
      preemption_count: number;
      requests: { num_decode_tokens: number }[];
    };
    assert.equal(r.completed_requests, 20);
    assert.equal(r.preemption_count, 0);
    assert.equal(clusterBlock(res.stdout)["total_output_tokens"], r.total_output_tokens);
    const requested = r.requests.reduce((s, x) => s + x.num_decode_tokens, 0);
    return {
      total: r.total_output_tokens,
      requested,
      withOutput: r.requests.filter((x) => x.num_decode_tokens >= 1).length,
    };
  };
  // Seed timeline (BLIS 2025): the prefill's token is not counted, one per completed request.
  const seed = await sums(["--latency-model", "blackbox"]);
  assert.equal(seed.total, seed.requested - seed.withOutput);
  // Current timeline: every output token is counted.
  const current = await sums([]);
  assert.equal(current.total, current.requested);
});

test("a final token without a free KV block is counted, not reported as an error", async () => {
  const args = [
    ...M,
    "--latency-model",
    "blackbox",
    "--num-requests",
    "20",
    "--rate",
    "50",
    "--total-kv-blocks",
    "40",
    "--prompt-tokens",
    "100",
    "--prompt-tokens-stdev",
    "20",
    "--prompt-tokens-min",
    "2",
    "--prompt-tokens-max",
    "400",
    "--output-tokens",
    "64",
    "--output-tokens-stdev",
    "20",
    "--output-tokens-min",
    "2",
    "--output-tokens-max",
    "200",
  ];
  const res = await cli(args);
  assert.equal(res.code, 0);
  const b = clusterBlock(res.stdout);
  assert.equal(b["completed_requests"], 20);
  assert.equal(b["kv_allocation_failures"], 1);
  assert.deepEqual(
    res.stderr.filter((l) => !l.includes("Using default")),
    [],
  );
  const debug = await cli([...args, "--log", "debug"]);
  assert.ok(
    debug.stderr.includes(
      'level=debug msg="request_10 completed with no free KV block for its final token (counted in kv_allocation_failures)"',
    ),
  );
});

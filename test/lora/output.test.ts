// LoRA output (docs/lora.md "Output"): the adapters key, per-request adapter, the stdout block.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, clusterBlock } from "../helpers/cli.js";
import { v3Columns } from "../../src/workload/trace/traceV2Csv.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lora-output-"));
const lora = path.join(dir, "lora.yaml");
fs.writeFileSync(lora, "lora:\n  adapter_capacity: 1\n  adapters:\n    - {id: a, rank: 8}\n    - {id: b, rank: 16}\n");
const spec = path.join(dir, "spec.yaml");
const client = (id: string, a: string): string =>
  `  - {id: ${id}, rate_fraction: 0.4, ${a === "" ? "" : `adapter: ${a}, `}arrival: {process: poisson}, input_distribution: {type: constant, params: {value: 64}}, output_distribution: {type: constant, params: {value: 8}}}\n`;
fs.writeFileSync(
  spec,
  `version: "2"\nseed: 5\naggregate_rate: 50\nnum_requests: 60\nclients:\n${client("ca", "a")}${client("cb", "b")}${client("cn", "")}`,
);
const BASE = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--workload-spec", spec];

test("the adapters key: loads, evictions, TTFT percentiles and throughput per adapter, last in the block", async () => {
  const out = path.join(dir, "results.json");
  const r = await cli([...BASE, "--lora-config", lora, "--results-path", out]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const block = clusterBlock(r.stdout) as unknown as Record<string, unknown>;
  const adapters = block["adapters"] as Record<string, Record<string, number>>;
  assert.deepEqual(Object.keys(adapters), ["a", "b"]);
  for (const a of Object.values(adapters)) {
    assert.deepEqual(Object.keys(a), [
      "load_count",
      "eviction_count",
      "ttft_p50_us",
      "ttft_p99_us",
      "throughput_tok_per_s",
    ]);
    assert.ok(a["load_count"]! >= 1);
    assert.ok(a["ttft_p50_us"]! > 0 && a["ttft_p50_us"]! <= a["ttft_p99_us"]!);
  }
  // One slot, two adapters: every load after the first evicts the other adapter.
  const loads = adapters["a"]!["load_count"]! + adapters["b"]!["load_count"]!;
  const evictions = adapters["a"]!["eviction_count"]! + adapters["b"]!["eviction_count"]!;
  assert.equal(evictions, loads - 1);
  assert.equal(Object.keys(block).at(-1), "adapters");
  const file = JSON.parse(fs.readFileSync(out, "utf8")) as { requests: Record<string, unknown>[]; adapters: unknown };
  assert.deepEqual(file.adapters, adapters);
  const tagged = file.requests.filter((q) => q["adapter"] !== undefined);
  assert.ok(tagged.length > 0 && tagged.length < file.requests.length, "requests without adapter carry no key");
  // Throughput: requested output tokens of the adapter's completed requests over the run's duration.
  const done = file.requests.filter((q) => q["adapter"] === "a" && (q["e2e_ms"] as number) > 0).length;
  const duration = block["vllm_estimated_duration_s"] as number;
  assert.ok(Math.abs(adapters["a"]!["throughput_tok_per_s"]! - (done * 8) / duration) < 1e-9);
  assert.match(r.stdout, /=== LoRA Adapters ===\nAdapters: 2, Cold Loads: \d+, Evictions: \d+\n {2}a: loads=/);
});

test("without active LoRA there is no adapters key and no LoRA block", async () => {
  const inert = path.join(dir, "inert.yaml");
  fs.writeFileSync(inert, "lora:\n  adapters:\n    - {id: a, rank: 8}\n    - {id: b, rank: 16}\n");
  const r = await cli([...BASE, "--lora-config", inert]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.ok(!r.stdout.includes("adapters") && !r.stdout.includes("LoRA"));
});

test("a trace's adapter column tags the replayed requests and is checked against the declared adapters", async () => {
  const fixtures = path.resolve(import.meta.dirname, "..", "..", "..", "test", "fixtures", "workload");
  const cols = v3Columns(["adapter"]);
  const value = (c: string, k: number, adapter: string): string => {
    if (c === "request_id") return String(k);
    if (c === "adapter") return adapter;
    if (c === "arrival_time_us" || c === "send_time_us") return String(1000 * (k + 1));
    if (c === "input_tokens") return "100";
    if (c === "output_tokens") return "10";
    if (c === "streaming") return "false";
    if (c === "status") return "ok";
    if (
      [
        "client_id",
        "tenant_id",
        "slo_class",
        "session_id",
        "prefix_group",
        "model",
        "error_message",
        "finish_reason",
      ].includes(c)
    )
      return "";
    return "0";
  };
  const csv = (adapters: string[]): string =>
    [cols.join(","), ...adapters.map((a, k) => cols.map((c) => value(c, k, a)).join(","))].join("\n") + "\n";
  const header = path.join(dir, "trace.yaml");
  fs.copyFileSync(path.join(fixtures, "trace-header.yaml"), header);
  const data = path.join(dir, "trace.csv");
  fs.writeFileSync(data, csv(["a", "zz", ""]));
  const args = [
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--replay-trace",
    header,
    "--replay-trace-data",
    data,
  ];
  const bad = await cli([...args, "--lora-config", lora]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr.join("\n"), /error: trace request request_1: unknown adapter "zz" \(declared: a, b\)/);
  fs.writeFileSync(data, csv(["a", "b", ""]));
  const out = path.join(dir, "trace-results.json");
  const ok = await cli([...args, "--lora-config", lora, "--results-path", out]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
  const recs = (JSON.parse(fs.readFileSync(out, "utf8")) as { requests: { adapter?: string }[] }).requests;
  assert.deepEqual(
    recs.map((r) => r.adapter ?? ""),
    ["a", "b", ""],
  );
});

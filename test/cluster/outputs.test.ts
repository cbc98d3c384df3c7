// Stdout blocks and the results file (docs/behavior.md "Metrics").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runCli, BASE } from "./helpers.js";
import { cli, clusterBlock, metricBlocks } from "../helpers/cli.js";
import { record, req, run, simConfig } from "../helpers/sim.js";
import { renderTail } from "../../src/metrics/render.js";
import { requestRecords } from "../../src/metrics/collect.js";
import { formatFixed, goJson } from "../../src/util/goFormat.js";
import { distribution, jainIndex } from "../../src/metrics/stats.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-out-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

const BLOCK_KEYS = [
  "instance_id",
  "completed_requests",
  "still_queued",
  "still_running",
  "injected_requests",
  "total_input_tokens",
  "total_output_tokens",
  "vllm_estimated_duration_s",
  "responses_per_sec",
  "tokens_per_sec",
  "e2e_mean_ms",
  "e2e_p90_ms",
  "e2e_p95_ms",
  "e2e_p99_ms",
  "ttft_mean_ms",
  "ttft_p90_ms",
  "ttft_p95_ms",
  "ttft_p99_ms",
  "itl_mean_ms",
  "itl_p90_ms",
  "itl_p95_ms",
  "itl_p99_ms",
  "scheduling_delay_p99_ms",
  "preemption_count",
  "dropped_unservable",
];

const SPEC = `version: "2"
seed: 7
aggregate_rate: 20
num_requests: 12
clients:
  - id: a
    tenant_id: t1
    slo_class: critical
    rate_fraction: 0.5
    arrival: {process: constant}
    input_distribution: {type: constant, params: {value: 64}}
    output_distribution: {type: constant, params: {value: 8}}
  - id: b
    rate_fraction: 0.5
    arrival: {process: constant}
    input_distribution: {type: constant, params: {value: 32}}
    output_distribution: {type: constant, params: {value: 8}}
`;

test("per-instance blocks only for N > 1 and only for instances with completions", async () => {
  const a = await runCli("--num-requests", "2", "--num-instances", "3");
  assert.deepEqual(
    metricBlocks(a.stdout).map((b) => b["instance_id"]),
    ["instance_0", "instance_1", "cluster"],
  );
  for (const b of metricBlocks(a.stdout)) assert.deepEqual(Object.keys(b), BLOCK_KEYS);
  const one = await runCli("--num-requests", "2");
  assert.deepEqual(
    metricBlocks(one.stdout).map((b) => b["instance_id"]),
    ["cluster"],
  );
  assert.ok(
    one.stdout.startsWith('=== Simulation Metrics ===\n{\n  "instance_id": "cluster",\n  "completed_requests": 2,\n'),
  );
  // Cluster = sums / maximum of the instance blocks.
  const [i0, i1, c] = metricBlocks(a.stdout);
  assert.equal(c!["total_input_tokens"], (i0!["total_input_tokens"] as number) + (i1!["total_input_tokens"] as number));
  assert.equal(
    c!["vllm_estimated_duration_s"],
    Math.max(i0!["vllm_estimated_duration_s"] as number, i1!["vllm_estimated_duration_s"] as number),
  );
});

test("KV cache block: printed when a value is non-zero, 4 decimals, unweighted mean over instances", () => {
  const shared = Array.from({ length: 64 }, (_, i) => 50000 + i);
  const reqs = Array.from({ length: 6 }, (_, i) => req(`request_${i}`, i * 100000, [...shared, 1000 + i, 2000 + i], 4));
  const r1 = run(simConfig(), reqs);
  const text = renderTail(r1.metrics, { printFairness: false, summarizeTrace: false });
  // Block-level hit ratio; decode blocks count as misses (docs/behavior.md#q11).
  assert.equal(r1.metrics.kv.cacheHitRate, r1.instances[0]!.kv.cacheHitRate());
  assert.equal(r1.metrics.kv.cacheHitRate, 2 / 3);
  assert.equal(
    text,
    "=== KV Cache Metrics ===\nPreemption Rate: 0.0000\nCache Hit Rate: 0.6667\nKV Thrashing Rate: 0.0000\n",
  );
  // Several instances: the unweighted mean of the per-instance ratios (idle instances count as 0).
  const r3 = run(simConfig({ cluster: { numInstances: 3, routing: { policy: "least-loaded" } } }), reqs);
  const rates = r3.instances.map((x) => x.kv.cacheHitRate());
  assert.equal(r3.metrics.kv.cacheHitRate, (rates[0]! + rates[1]! + rates[2]!) / 3);
  // Nothing to report → no block.
  const none = run(simConfig(), [req("request_0", 0, 40, 4)]);
  assert.equal(renderTail(none.metrics, { printFairness: false, summarizeTrace: false }), "");
});

test("per-SLO block: microseconds with 2 decimals, classes sorted, empty class shown as default", () => {
  const reqs = [
    req("request_0", 0, 40, 4, { sloClass: "critical", tenantId: "a" }),
    req("request_1", 1000, 80, 6, { tenantId: "a" }),
    req("request_2", 2000, 30, 3, { sloClass: "batch", tenantId: "b" }),
    req("request_3", 3000, 50, 5, { sloClass: "critical", tenantId: "a" }),
  ];
  const r = run(simConfig({ alpha: [100, 1, 7] }), reqs);
  const text = renderTail(r.metrics, { printFairness: true, summarizeTrace: false });
  const d = (ids: string[], f: "ttft" | "e2e") =>
    distribution(Float64Array.from(ids.map((id) => record(r, id)[f])).sort());
  const line = (ids: string[]) => {
    const t = d(ids, "ttft");
    const e = d(ids, "e2e");
    return (
      `    TTFT: mean=${formatFixed(t.mean, 2)} p99=${formatFixed(t.p99, 2)} (n=${t.count})\n` +
      `    E2E:  mean=${formatFixed(e.mean, 2)} p99=${formatFixed(e.p99, 2)} (n=${e.count})\n`
    );
  };
  const crit = record(r, "request_0").ttft + record(r, "request_3").ttft;
  assert.ok(text.includes(`    TTFT: mean=${formatFixed(crit / 2, 2)} `), "critical TTFT mean in ticks, not ms");
  // Jain over tenant throughput: a has 3 completions, b has 1 → 16 / (2 · 10) = 0.8.
  const expected =
    "=== Per-SLO Metrics ===\n" +
    "  batch:\n" +
    line(["request_2"]) +
    "  critical:\n" +
    line(["request_0", "request_3"]) +
    "  default:\n" +
    line(["request_1"]) +
    "=== Fairness ===\nJain Index (tenants): 0.8000\n";
  assert.equal(text, expected);
  // p99 of two values by the rank rule: v0 + 0.99 · (v1 − v0).
  const t0 = record(r, "request_0").ttft;
  const t3 = record(r, "request_3").ttft;
  const [lo, hi] = t0 < t3 ? [t0, t3] : [t3, t0];
  assert.equal(d(["request_0", "request_3"], "ttft").p99, lo + 0.99 * (hi - lo));
});

test("per-SLO block needs more than one class; Jain index edge cases", () => {
  const r = run(simConfig(), [
    req("request_0", 0, 40, 4, { sloClass: "critical" }),
    req("request_1", 10, 40, 4, { sloClass: "critical" }),
  ]);
  assert.equal(renderTail(r.metrics, { printFairness: false, summarizeTrace: false }), "");
  assert.equal(
    renderTail(r.metrics, { printFairness: true, summarizeTrace: false }),
    "=== Fairness ===\nJain Index (tenants): 1.0000\n",
  );
  assert.equal(jainIndex(new Map()), 0);
  assert.equal(
    jainIndex(
      new Map([
        ["x", 0],
        ["y", 0],
      ]),
    ),
    1,
  );
  assert.equal(
    jainIndex(
      new Map([
        ["x", 3],
        ["y", 1],
      ]),
    ),
    0.8,
  );
  assert.equal(
    jainIndex(
      new Map([
        ["x", 1],
        ["y", 0],
        ["z", 0],
        ["w", 0],
      ]),
    ),
    0.25,
  );
});

test("CLI per-SLO and fairness blocks from a workload spec", async () => {
  const spec = path.join(dir, "spec.yaml");
  fs.writeFileSync(spec, SPEC);
  const res = await runCli("--workload-spec", spec, "--print-fairness");
  assert.equal(res.code, 0, res.stderr.join("\n"));
  assert.match(
    res.stdout,
    /=== Per-SLO Metrics ===\n {2}critical:\n {4}TTFT: mean=\d+\.\d\d p99=\d+\.\d\d \(n=6\)\n {4}E2E: {2}mean=\d+\.\d\d p99=\d+\.\d\d \(n=6\)\n {2}default:\n {4}TTFT: mean=\d+\.\d\d p99=\d+\.\d\d \(n=6\)\n {4}E2E: {2}mean=\d+\.\d\d p99=\d+\.\d\d \(n=6\)\n=== Fairness ===\nJain Index \(tenants\): 1\.0000\n$/,
  );
  const noFair = await runCli("--workload-spec", spec);
  assert.ok(!noFair.stdout.includes("Fairness"));
});

test("results file: key order, record order (arrived_at then ID), omitted empty fields, no trailing newline", async () => {
  const spec = path.join(dir, "spec2.yaml");
  fs.writeFileSync(spec, SPEC);
  const file = path.join(dir, "results.json");
  const res = await runCli("--workload-spec", spec, "--num-instances", "2", "--results-path", file);
  assert.equal(res.code, 0);
  const text = fs.readFileSync(file, "utf8");
  assert.ok(text.endsWith("}") && !text.endsWith("\n"));
  const obj = JSON.parse(text) as Record<string, unknown> & { requests: Record<string, unknown>[] };
  assert.deepEqual(Object.keys(obj), [...BLOCK_KEYS, "requests"]);
  assert.equal(obj["instance_id"], "cluster");
  const { requests, ...block } = obj;
  assert.deepEqual(block, clusterBlock(res.stdout), "same values as the printed cluster block");
  assert.equal(requests.length, 12);
  for (const r of requests) {
    const crit = r["slo_class"] === "critical";
    assert.deepEqual(
      Object.keys(r),
      crit
        ? [
            "arrived_at",
            "requestID",
            "num_prefill_tokens",
            "num_decode_tokens",
            "ttft_ms",
            "itl_ms",
            "e2e_ms",
            "scheduling_delay_ms",
            "slo_class",
            "tenant_id",
            "handled_by",
          ]
        : [
            "arrived_at",
            "requestID",
            "num_prefill_tokens",
            "num_decode_tokens",
            "ttft_ms",
            "itl_ms",
            "e2e_ms",
            "scheduling_delay_ms",
            "handled_by",
          ],
    );
    assert.match(r["handled_by"] as string, /^instance_[01]$/);
  }
  for (let i = 1; i < requests.length; i++) {
    const a = requests[i - 1]!;
    const b = requests[i]!;
    const ok =
      (a["arrived_at"] as number) < (b["arrived_at"] as number) ||
      (a["arrived_at"] === b["arrived_at"] && (a["requestID"] as string) < (b["requestID"] as string));
    assert.ok(ok, `${a["requestID"]} before ${b["requestID"]}`);
  }
  // Two constant clients at the same rate: arrivals come in equal pairs.
  assert.equal(requests[0]!["arrived_at"], requests[1]!["arrived_at"]);
  // Pretty-printed with two spaces, like Go's MarshalIndent.
  assert.ok(text.startsWith('{\n  "instance_id": "cluster",\n  "completed_requests": 12,'));
  assert.ok(text.includes('\n  "requests": [\n    {\n      "arrived_at": '));
});

test("results file order is arrived_at then byte-wise ID (request_10 < request_9)", () => {
  const r = run(simConfig(), [
    req("request_9", 500, 20, 2),
    req("request_10", 500, 20, 2),
    req("request_2", 100, 20, 2),
    req("request_11", 900, 20, 2),
  ]);
  assert.deepEqual(
    requestRecords(r.ledger).map((x) => x.requestID),
    ["request_2", "request_10", "request_9", "request_11"],
  );
  const rec = requestRecords(r.ledger)[0]!;
  assert.equal(rec.arrived_at, 0.0001);
  assert.equal(rec.slo_class, undefined);
  assert.equal(rec.tenant_id, undefined);
  assert.equal(rec.model, undefined);
  assert.equal(rec.handled_by, "instance_0");
  assert.equal(rec.ttft_ms, record(r, "request_2").ttft / 1000);
  assert.equal(rec.scheduling_delay_ms, record(r, "request_2").sched / 1000);
});

test("results file is written even when nothing completed", async () => {
  const f1 = path.join(dir, "rejected.json");
  const a = await runCli("--admission-policy", "reject-all", "--results-path", f1);
  assert.equal(a.code, 0);
  assert.equal(clusterBlock(a.stdout)["completed_requests"], 0, "the cluster block is printed with zero counts");
  assert.equal(clusterBlock(a.stdout)["e2e_mean_ms"], null, "and no latency");
  const o1 = JSON.parse(fs.readFileSync(f1, "utf8")) as Record<string, unknown>;
  assert.deepEqual(Object.keys(o1), BLOCK_KEYS, "requests omitted when empty");
  assert.equal(o1["completed_requests"], 0);
  assert.equal(o1["injected_requests"], 0);

  // 1-second steps and a 0.5 s horizon: requests are routed and running, none completes.
  const f2 = path.join(dir, "horizon.json");
  const b = await runCli("--beta-coeffs", "1000000,0,0", "--horizon", "500000", "--results-path", f2);
  assert.equal(b.code, 0);
  // No completion: the counts, null for latencies that no request has (E2E, ITL), and the TTFT
  // and scheduling delay of the requests that started running.
  const printed = clusterBlock(b.stdout);
  assert.equal(metricBlocks(b.stdout).length, 1);
  assert.ok(b.stdout.endsWith("}\n"), "no other block: no counter is set");
  for (const k of ["e2e_mean_ms", "e2e_p99_ms", "itl_mean_ms", "itl_p99_ms"]) assert.equal(printed[k], null, k);
  assert.equal(typeof printed["ttft_mean_ms"], "number");
  assert.equal(typeof printed["scheduling_delay_p99_ms"], "number");
  assert.ok((printed["injected_requests"] as number) > 0);
  const o2 = JSON.parse(fs.readFileSync(f2, "utf8")) as Record<string, unknown> & {
    requests: Record<string, unknown>[];
  };
  assert.equal(o2["completed_requests"], 0);
  assert.ok((o2["injected_requests"] as number) > 0);
  assert.equal(o2["e2e_mean_ms"], 0);
  assert.equal(o2["responses_per_sec"], 0);
  assert.ok((o2["total_input_tokens"] as number) > 0, "counts and token totals still filled in");
  assert.ok((o2["vllm_estimated_duration_s"] as number) > 0);
  assert.ok(o2.requests.length > 0);
  for (const r of o2.requests) {
    assert.equal(r["e2e_ms"], 0);
    assert.equal(r["itl_ms"], 0);
  }
});

test("stdout is byte-identical for the same seed and differs for another seed", async () => {
  const args = [
    "--num-instances",
    "3",
    "--routing-policy",
    "weighted",
    "--trace-level",
    "decisions",
    "--summarize-trace",
    "--counterfactual-k",
    "2",
    "--prefix-tokens",
    "32",
  ];
  const a = await runCli(...args, "--seed", "5");
  const b = await runCli(...args, "--seed", "5");
  const c = await runCli(...args, "--seed", "6");
  assert.equal(a.code, 0);
  assert.ok(a.stdout.length > 1000);
  assert.equal(a.stdout, b.stdout);
  assert.notEqual(a.stdout, c.stdout);
  // The default seed is 42.
  const d = await cli([...BASE, ...args]);
  const e = await runCli(...args, "--seed", "42");
  assert.equal(d.stdout, e.stdout);
});

test("Go-style fixed-decimal rounding: exact binary ties round half to even", () => {
  assert.equal(formatFixed(0.125, 2), "0.12");
  assert.equal(formatFixed(0.375, 2), "0.38");
  assert.equal(formatFixed(-0.125, 2), "-0.12");
  assert.equal(formatFixed(2.5, 0), "2");
  assert.equal(formatFixed(3.5, 0), "4");
  assert.equal(formatFixed(0.5, 0), "0");
  assert.equal(formatFixed(0.00005, 4), "0.0001", "0.00005 is not an exact tie in binary (slightly above)");
  assert.equal(formatFixed(1.00015, 4), (1.00015).toFixed(4), "non-ties follow the exact binary value");
  assert.equal(formatFixed(0.0000005, 6), "0.000000", "5e-7 is slightly below the tie in binary");
  assert.equal(formatFixed(0.03125, 4), "0.0312");
  assert.equal(formatFixed(0.09375, 4), "0.0938");
  assert.equal(formatFixed(1 / 3, 6), "0.333333");
  assert.equal(formatFixed(0, 4), "0.0000");
  assert.equal(formatFixed(12345.6789, 2), "12345.68");
});

test("Go JSON: <, > and & are escaped inside strings", () => {
  assert.equal(goJson({ tenant_id: "<a&b>" }), '{\n  "tenant_id": "\\u003ca\\u0026b\\u003e"\n}');
  assert.equal(goJson({ x: 1e21, y: 1e-7, z: 0.1, w: 5 }), '{\n  "x": 1e+21,\n  "y": 1e-7,\n  "z": 0.1,\n  "w": 5\n}');
});

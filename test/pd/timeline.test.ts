// The worked timeline of docs/prefill-decode.md: two split requests through 2 prefill + 2 decode
// instances, every time and metric recomputed by hand.

import { test } from "node:test";
import assert from "node:assert/strict";
import { simulate, type SimulationResult } from "../../src/sim/simulate.js";
import { renderStdout } from "../../src/sim/renderStdout.js";
import { ArrayRequestSource, makeRequest } from "../../src/core/workloadRequest.js";
import { silentLogger } from "../../src/util/log.js";
import type { RunInput } from "../../src/config/runOptions.js";

const ids = (n: number, from: number): number[] => Array.from({ length: n }, (_, i) => from + i);

/** --latency-model blackbox, α = [500, 1, 200], β = [1000, 10, 5]; Llama-3.1-8B (B_tok = 131 072 bytes). */
export const TIMELINE_INPUT: RunInput = {
  model: "meta-llama/llama-3.1-8b-instruct",
  hardware: "H100",
  tp: 1,
  alphaCoeffs: [500, 1, 200],
  betaCoeffs: [1000, 10, 5],
  totalKvBlocks: 10000,
  numInstances: 4,
  prefillInstances: 2,
  decodeInstances: 2,
  pdDecider: "always",
  traceLevel: "decisions",
};

async function timeline(input: RunInput = TIMELINE_INPUT): Promise<SimulationResult> {
  const a = makeRequest("request_0", 0, ids(1000, 1), ids(3, 5000));
  const b = makeRequest("request_1", 2000, ids(200, 10000), ids(2, 20000));
  return simulate(input, {
    logger: silentLogger,
    workload: { source: new ArrayRequestSource([a, b]), horizon: Infinity },
  });
}

test("worked timeline: transfers start when the last prefill step ends; each pool has its own round-robin", async () => {
  const res = await timeline();
  const trace = res.run.trace!;
  // Per-pool round-robin: A → prefill instance_0, decode instance_2; B → instance_1, instance_3.
  assert.deepEqual(
    trace.prefillRoutings.map((r) => [r.requestId, r.chosen]),
    [
      ["request_0", "instance_0"],
      ["request_1", "instance_1"],
    ],
  );
  // A's prefill: queued at 1500, one step of 11000 ticks, so its KV moves from 12500 for 5335 ticks
  // (63 blocks × 2 097 152 bytes at 25 000 bytes/tick + 50); B's from 5700 for 1141.
  assert.deepEqual(
    trace.kvTransfers.map((t) => [
      t.requestId,
      t.start,
      t.duration,
      t.numKvBlocks,
      t.prefillInstance,
      t.decodeInstance,
    ]),
    [
      ["request_1", 5700, 1141, 13, "instance_1", "instance_3"],
      ["request_0", 12500, 5335, 63, "instance_0", "instance_2"],
    ],
  );
  assert.equal(trace.routings.length, 0, "no request was served whole");
  assert.deepEqual(
    trace.disaggregations.map((d) => d.disaggregate),
    [true, true],
  );
  const l = res.run.ledger;
  const row = (id: string): number => l.ids.indexOf(id);
  const a = row("request_0");
  const b = row("request_1");
  // A: decode admitted at 17835 (S_d), first decode step 1005 + α2 200; seed timeline: the last
  // ITL entry is duplicated, so ΣITL = 3 × 1205.
  assert.equal(l.ttft[a], 17835 + 1205);
  assert.equal(l.e2e[a], 17835 + 3 * 1205);
  assert.equal(l.sched[a], 1500, "the prefill side's scheduling delay");
  assert.equal(l.itl[a], (3 * 1205) / 2);
  assert.equal(l.instance[a], 2);
  // B: decode admitted at 6841, S_d = 4841.
  assert.equal(l.ttft[b], 4841 + 1205);
  assert.equal(l.e2e[b], 4841 + 2 * 1205);
  assert.equal(l.sched[b], 700);
  assert.equal(l.instance[b], 3);
  // The user's TTFT is never below the prefill sub-request's own (12700 for A, 3900 for B).
  assert.ok(l.ttft[a]! >= 12700 && l.ttft[b]! >= 3900);
  assert.deepEqual(l.ids.filter((x) => x !== undefined).sort(), ["request_0", "request_1"]);
});

test("worked timeline: cluster, per-instance and PD blocks", async () => {
  const res = await timeline();
  const m = res.metrics;
  assert.equal(m.cluster.completed_requests, 2);
  assert.equal(m.cluster.injected_requests, 2);
  assert.equal(m.cluster.total_input_tokens, 1200);
  assert.equal(m.cluster.total_output_tokens, 3);
  // Duration: instance_2's last request leaves at 18840 + 1005.
  assert.equal(m.cluster.vllm_estimated_duration_s, 0.019845);
  assert.deepEqual(
    m.instances.map((b) => b.completed_requests),
    [1, 1, 1, 1],
  );
  // Prefill instances report their sub-request: TTFT with α2, E2E = TTFT, no output.
  assert.equal(m.instances[0]!.ttft_mean_ms, 12.7);
  assert.equal(m.instances[0]!.e2e_mean_ms, 12.7);
  assert.equal(m.instances[1]!.ttft_mean_ms, 3.9);
  assert.equal(m.instances[2]!.total_input_tokens, 0);
  const out = renderStdout(res).tail;
  const block = out.slice(out.indexOf("=== PD Metrics ==="));
  assert.equal(
    block,
    [
      "=== PD Metrics ===",
      "Disaggregated Requests: 2",
      "Dropped at Decode KV: 0",
      `Prefill Throughput: ${(2 / 0.019845).toFixed(4)} sub-req/s`,
      `Decode Throughput: ${(2 / 0.019845).toFixed(4)} sub-req/s`,
      "Load Imbalance Ratio: 1.0000",
      "Parent TTFT (us): mean=12543.0 p50=12543.0 p95=18390.3 p99=18910.1",
      "KV Transfer Duration (us): mean=3238.0 p50=3238.0 p95=5125.3 p99=5293.1",
      "",
    ].join("\n"),
  );
});

test("worked timeline: contention halves the bandwidth of overlapping transfers only", async () => {
  // The two transfers (5700–6841 and 12500–17835) do not overlap: each starts alone.
  const res = await timeline({ ...TIMELINE_INPUT, pdTransferContention: true });
  assert.deepEqual(
    res.run.trace!.kvTransfers.map((t) => t.duration),
    [1141, 5335],
  );
  assert.deepEqual(res.metrics.pd?.contention, { peak: 1, meanDepth: 1 });
});
